/* report_version.h - the version retsnoop-report and its subcommands print. */
#ifndef RS_REPORT_VERSION_H
#define RS_REPORT_VERSION_H

#define REPORT_VERSION "0.1"

#endif
