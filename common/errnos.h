/* errnos.h - kernel errno names (including kernel-internal 512..530) in
 * both directions, for result rendering and -x/-X parsing. */
#ifndef RS_ERRNOS_H
#define RS_ERRNOS_H

/* "ENOMEM" for 12, NULL if unknown (positive errno in) */
const char *errno_name(int err);
/* Parses "ENOMEM", "-ENOMEM", "NULL" (returns 0) or a decimal number
 * ("12", "-12"). Returns the positive errno, 0 for NULL, -1 if unknown. */
int errno_parse(const char *s);

#endif
