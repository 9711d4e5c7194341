/* ksym_records.h - the ksym iterator's binary records
 * (bpf/ksym_iter_abi.h) turned into the ksyms table /proc/kallsyms text
 * gives (symbols/ksyms.h). */
#ifndef RECORD_KSYM_RECORDS_H
#define RECORD_KSYM_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include "symbols/ksyms.h"

/* parses BUF (LEN bytes of records, malloc'ed; taken over: freed or kept
 * as the table's string pool). [bpf] symbols at one of the NSKIP
 * addresses of SKIP (the iterator program's own) are left out, and so is
 * the iterator's repeat of the last symbol at its end. NULL with the
 * reason in err on a malformed record or out of memory. */
struct ksyms *ksym_records_parse(char *buf, size_t len, const uint64_t *skip, size_t nskip,
				 char *err, size_t errlen);

#endif
