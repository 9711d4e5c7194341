/* addr2line_cmd.h - `retsnoop-report addr2line -e VMLINUX [-i]`: a plain
 * stdin-to-stdout symbolizer over the DWARF library, for tests and
 * benchmarks. */
#ifndef RS_ADDR2LINE_CMD_H
#define RS_ADDR2LINE_CMD_H

/* argv[0] is "addr2line"; returns the process exit status */
int addr2line_main(int argc, char **argv);

#endif
