/* diff_cmd.h - `retsnoop-report diff OLD NEW`: failing call paths that
 * appear only in NEW, only in OLD, or in both with changed counts. */
#ifndef RS_DIFF_CMD_H
#define RS_DIFF_CMD_H

int diff_main(int argc, char **argv);

#endif
