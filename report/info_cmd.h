/* info_cmd.h - `retsnoop-report info FILE`: what a recording holds. */
#ifndef RS_INFO_CMD_H
#define RS_INFO_CMD_H

int info_main(int argc, char **argv);

#endif
