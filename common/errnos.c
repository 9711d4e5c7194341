/* errnos.c - the kernel errno name table (1..133 plus the kernel-internal
 * 512..530 codes) and conversions in both directions (see errnos.h). */
#include <stdlib.h>
#include <string.h>
#include "errnos.h"

struct errno_entry {
	int num;
	const char *name;
};

/* sorted by number; 41, 58 and 520 are unused in Linux */
static const struct errno_entry errno_table[] = {
	{1, "EPERM"}, {2, "ENOENT"}, {3, "ESRCH"}, {4, "EINTR"}, {5, "EIO"},
	{6, "ENXIO"}, {7, "E2BIG"}, {8, "ENOEXEC"}, {9, "EBADF"}, {10, "ECHILD"},
	{11, "EAGAIN"}, {12, "ENOMEM"}, {13, "EACCES"}, {14, "EFAULT"}, {15, "ENOTBLK"},
	{16, "EBUSY"}, {17, "EEXIST"}, {18, "EXDEV"}, {19, "ENODEV"}, {20, "ENOTDIR"},
	{21, "EISDIR"}, {22, "EINVAL"}, {23, "ENFILE"}, {24, "EMFILE"}, {25, "ENOTTY"},
	{26, "ETXTBSY"}, {27, "EFBIG"}, {28, "ENOSPC"}, {29, "ESPIPE"}, {30, "EROFS"},
	{31, "EMLINK"}, {32, "EPIPE"}, {33, "EDOM"}, {34, "ERANGE"}, {35, "EDEADLK"},
	{36, "ENAMETOOLONG"}, {37, "ENOLCK"}, {38, "ENOSYS"}, {39, "ENOTEMPTY"}, {40, "ELOOP"},
	{42, "ENOMSG"}, {43, "EIDRM"}, {44, "ECHRNG"}, {45, "EL2NSYNC"}, {46, "EL3HLT"},
	{47, "EL3RST"}, {48, "ELNRNG"}, {49, "EUNATCH"}, {50, "ENOCSI"}, {51, "EL2HLT"},
	{52, "EBADE"}, {53, "EBADR"}, {54, "EXFULL"}, {55, "ENOANO"}, {56, "EBADRQC"},
	{57, "EBADSLT"}, {59, "EBFONT"}, {60, "ENOSTR"}, {61, "ENODATA"}, {62, "ETIME"},
	{63, "ENOSR"}, {64, "ENONET"}, {65, "ENOPKG"}, {66, "EREMOTE"}, {67, "ENOLINK"},
	{68, "EADV"}, {69, "ESRMNT"}, {70, "ECOMM"}, {71, "EPROTO"}, {72, "EMULTIHOP"},
	{73, "EDOTDOT"}, {74, "EBADMSG"}, {75, "EOVERFLOW"}, {76, "ENOTUNIQ"}, {77, "EBADFD"},
	{78, "EREMCHG"}, {79, "ELIBACC"}, {80, "ELIBBAD"}, {81, "ELIBSCN"}, {82, "ELIBMAX"},
	{83, "ELIBEXEC"}, {84, "EILSEQ"}, {85, "ERESTART"}, {86, "ESTRPIPE"}, {87, "EUSERS"},
	{88, "ENOTSOCK"}, {89, "EDESTADDRREQ"}, {90, "EMSGSIZE"}, {91, "EPROTOTYPE"},
	{92, "ENOPROTOOPT"}, {93, "EPROTONOSUPPORT"}, {94, "ESOCKTNOSUPPORT"}, {95, "EOPNOTSUPP"},
	{96, "EPFNOSUPPORT"}, {97, "EAFNOSUPPORT"}, {98, "EADDRINUSE"}, {99, "EADDRNOTAVAIL"},
	{100, "ENETDOWN"}, {101, "ENETUNREACH"}, {102, "ENETRESET"}, {103, "ECONNABORTED"},
	{104, "ECONNRESET"}, {105, "ENOBUFS"}, {106, "EISCONN"}, {107, "ENOTCONN"},
	{108, "ESHUTDOWN"}, {109, "ETOOMANYREFS"}, {110, "ETIMEDOUT"}, {111, "ECONNREFUSED"},
	{112, "EHOSTDOWN"}, {113, "EHOSTUNREACH"}, {114, "EALREADY"}, {115, "EINPROGRESS"},
	{116, "ESTALE"}, {117, "EUCLEAN"}, {118, "ENOTNAM"}, {119, "ENAVAIL"}, {120, "EISNAM"},
	{121, "EREMOTEIO"}, {122, "EDQUOT"}, {123, "ENOMEDIUM"}, {124, "EMEDIUMTYPE"},
	{125, "ECANCELED"}, {126, "ENOKEY"}, {127, "EKEYEXPIRED"}, {128, "EKEYREVOKED"},
	{129, "EKEYREJECTED"}, {130, "EOWNERDEAD"}, {131, "ENOTRECOVERABLE"}, {132, "ERFKILL"},
	{133, "EHWPOISON"},
	/* kernel-internal codes, never seen by user space but common in traces */
	{512, "ERESTARTSYS"}, {513, "ERESTARTNOINTR"}, {514, "ERESTARTNOHAND"},
	{515, "ENOIOCTLCMD"}, {516, "ERESTART_RESTARTBLOCK"}, {517, "EPROBE_DEFER"},
	{518, "EOPENSTALE"}, {519, "ENOPARAM"}, {521, "EBADHANDLE"}, {522, "ENOTSYNC"},
	{523, "EBADCOOKIE"}, {524, "ENOTSUPP"}, {525, "ETOOSMALL"}, {526, "ESERVERFAULT"},
	{527, "EBADTYPE"}, {528, "EJUKEBOX"}, {529, "EIOCBQUEUED"}, {530, "ERECALLCONFLICT"},
};

#define NERRNOS (sizeof(errno_table) / sizeof(errno_table[0]))

const char *errno_name(int err)
{
	size_t lo = 0, hi = NERRNOS;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (errno_table[mid].num == err)
			return errno_table[mid].name;
		if (errno_table[mid].num < err)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int errno_parse(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	if (strcmp(s, "NULL") == 0)
		return 0;
	if (s[0] == '-' && s[1] == 'E')
		s++;
	if (s[0] == 'E') {
		for (size_t i = 0; i < NERRNOS; i++)
			if (strcmp(errno_table[i].name, s) == 0)
				return errno_table[i].num;
		return -1;
	}
	/* decimal: "12" or "-12"; errno values live in 1..4095 */
	if (!(s[0] >= '0' && s[0] <= '9') && !(s[0] == '-' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	v = strtol(s, &end, 10);
	if (*end)
		return -1;
	if (v < 0)
		v = -v;
	if (v < 1 || v > 4095)
		return -1;
	return (int)v;
}
