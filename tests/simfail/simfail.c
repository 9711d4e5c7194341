/* simfail.c - scenario tool for the tracer tests: each case makes exactly one
 * call of a target syscall that fails (or, for success cases, succeeds) in a
 * known way, so a tracer attached to that syscall sees exactly one session.
 * Plain C, raw bpf(2) through syscall(2); no libbpf.
 *
 *   simfail -l            list the cases
 *   simfail CASE...       run the given cases
 *   simfail -a            run every case
 *   simfail -v ...        also print the verifier log and what is done
 *
 * For every case run, exactly one line goes to stdout:
 *   simfail: CASE result=-22 errno=EINVAL        (result=0 errno=0 on success)
 * The exit status is 0 if every case behaved as designed (failure cases: the
 * target call failed; success cases: it succeeded), 1 otherwise, 2 on usage
 * errors.  Environment: SIMFAIL_SLEEP_MS (syscall-long-sleep, default 1000).
 *
 * Results measured in the VM (tests/vm/vmrun, qemu TCG, 2 vCPUs, 512 MiB):
 *
 *   case                               6.12.117+deb12-cloud  6.1.0-56-cloud
 *   bpf-bad-map-type                   -EINVAL               -EINVAL
 *   bpf-bad-map-create-flags           -EINVAL               -EINVAL
 *   bpf-bad-map-key-size-array         -EINVAL               -EINVAL
 *   bpf-bad-map-max-entries-array      -EINVAL               -EINVAL
 *   bpf-bad-map-key-size-ringbuf       -EINVAL               -EINVAL
 *   bpf-bad-map-val-size-percpu-array  -ENOMEM               -ENOMEM
 *   bpf-bad-map-lookup-key             -EFAULT               -EFAULT
 *   bpf-bad-map-lookup-value           -EFAULT               -EFAULT
 *   bpf-bad-prog-load                  -EINVAL               -EINVAL
 *   bpf-simple-map                     0                     0
 *   open-missing                       -ENOENT               -ENOENT
 *   mkdir-existing                     -EEXIST               -EEXIST
 *   syscall-long-sleep                 0                     0
 *   pipe-write-no-reader               -EPIPE                -EPIPE
 *   bpf-prog-bad-helper                -EINVAL               -EINVAL
 *   bpf-queue-pop-empty                -ENOENT               -ENOENT
 *   bpf-skb-load-bytes-bad             -EFAULT               -EFAULT
 *   write-bad-fd                       -EBADF                -EBADF
 *   connect-bad-addrlen                -EINVAL               -EINVAL
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static int verbose;

/* Outcome of one case: the target call's return value (negative errno on
 * failure) and whether the case wants it to fail. */
struct outcome {
	long result;
	int want_failure;
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Returns -errno for a failed raw syscall result, else the result. */
static long as_result(long rc)
{
	return rc < 0 ? -(long)errno : rc;
}

static long map_create(unsigned type, unsigned key_size, unsigned value_size,
		       unsigned max_entries, unsigned flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = key_size;
	attr.value_size = value_size;
	attr.max_entries = max_entries;
	attr.map_flags = flags;
	return as_result(sys_bpf(BPF_MAP_CREATE, &attr));
}

/* A map-creating failure case: the created fd (if the kernel accepted the
 * map after all) is closed so the case stays side-effect free. */
static struct outcome map_create_fail(unsigned type, unsigned key_size, unsigned value_size,
				      unsigned max_entries, unsigned flags)
{
	struct outcome o = { map_create(type, key_size, value_size, max_entries, flags), 1 };

	if (o.result >= 0) {
		close((int)o.result);
		o.result = 0;
	}
	return o;
}

static struct outcome case_bad_map_type(void)
{
	return map_create_fail(0xffffffffu, 4, 4, 1, 0);
}

static struct outcome case_bad_map_create_flags(void)
{
	return map_create_fail(BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0xffffffffu);
}

static struct outcome case_bad_map_key_size_array(void)
{
	return map_create_fail(BPF_MAP_TYPE_ARRAY, 8, 4, 1, 0);	/* array keys are u32 */
}

static struct outcome case_bad_map_max_entries_array(void)
{
	return map_create_fail(BPF_MAP_TYPE_ARRAY, 4, 4, 0, 0);
}

static struct outcome case_bad_map_key_size_ringbuf(void)
{
	return map_create_fail(BPF_MAP_TYPE_RINGBUF, 1, 0, 4096, 0);	/* ringbufs have no keys */
}

static struct outcome case_bad_map_val_size_percpu_array(void)
{
	/* Kernels reject per-CPU values above the percpu unit minimum (32 KiB)
	 * with -E2BIG before allocating anything (checked on 6.1 and 6.12), and
	 * exhausting the percpu allocator for real would wake the OOM killer.
	 * So the values are small and the map has so many entries that its
	 * table of per-CPU pointers (8 bytes per entry) is bigger than the
	 * machine's RAM: vmalloc (behind bpf_map_area_alloc()) refuses such a
	 * size at once, so the map creation fails with -ENOMEM and nothing is
	 * allocated.  The table must really exceed RAM: a smaller one would be
	 * allocated and then filled with per-CPU elements.  Hence machines with
	 * 24+ GiB of RAM (the table is at most 32 GiB) cannot run this case. */
	const unsigned long long max_table = 8ull * 0xffffffffull;
	struct outcome o = { 0, 1 };
	unsigned long long ram, table;
	struct sysinfo si;

	if (sysinfo(&si) < 0) {
		fprintf(stderr, "simfail: sysinfo failed: %s\n", strerror(errno));
		o.want_failure = 0;
		return o;
	}
	ram = (unsigned long long)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	table = 2 * ram < max_table ? 2 * ram : max_table;
	if (table < ram + ram / 4) {
		fprintf(stderr, "simfail: this case needs less than 24 GiB of RAM (have %llu MiB); skipped\n",
			ram >> 20);
		o.want_failure = 0;
		o.result = -EOPNOTSUPP;	/* reported as a misbehaviour */
		return o;
	}
	if (verbose)
		fprintf(stderr, "simfail: percpu array with %llu entries (RAM %llu MiB)\n",
			table / 8, ram >> 20);
	return map_create_fail(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, (unsigned)(table / 8), 0);
}

/* A real map for the lookup cases (its successful creation is a separate,
 * non-failing bpf() call). Returns the fd or -errno. */
static long make_array_map(void)
{
	return map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0);
}

static struct outcome map_lookup(int bad_key)
{
	struct outcome o = { 0, 1 };
	union bpf_attr attr;
	uint32_t key = 0;
	uint64_t value;
	long fd = make_array_map();

	if (fd < 0) {
		fprintf(stderr, "simfail: creating the array map for the lookup failed: %s\n",
			strerror((int)-fd));
		o.result = fd;
		o.want_failure = 0;	/* the case could not be set up: report a misbehaviour */
		return o;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = bad_key ? 0 : (uint64_t)(uintptr_t)&key;
	attr.value = bad_key ? (uint64_t)(uintptr_t)&value : 0;
	o.result = as_result(sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr));
	close((int)fd);
	return o;
}

static struct outcome case_bad_map_lookup_key(void)
{
	return map_lookup(1);
}

static struct outcome case_bad_map_lookup_value(void)
{
	return map_lookup(0);
}

static struct outcome case_bad_prog_load(void)
{
	/* "r0 = 0; <opcode 0xff>; exit": 0xff is no BPF instruction, which the
	 * verifier rejects with -EINVAL */
	struct bpf_insn insns[3];
	static char log[4096];
	union bpf_attr attr;
	struct outcome o = { 0, 1 };

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
	insns[0].dst_reg = BPF_REG_0;
	insns[1].code = 0xff;
	insns[2].code = BPF_JMP | BPF_EXIT;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = 3;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	if (verbose) {
		attr.log_buf = (uint64_t)(uintptr_t)log;
		attr.log_size = sizeof(log);
		attr.log_level = 1;
	}
	o.result = as_result(sys_bpf(BPF_PROG_LOAD, &attr));
	if (o.result >= 0) {
		close((int)o.result);
		o.result = 0;
	}
	if (verbose && log[0])
		fprintf(stderr, "simfail: verifier log:\n%s", log);
	return o;
}

/* BPF_PROG_LOAD of a socket filter; insns/n: the program */
static long prog_load(const struct bpf_insn *insns, unsigned n)
{
	static char log[4096];
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	if (verbose) {
		attr.log_buf = (uint64_t)(uintptr_t)log;
		attr.log_size = sizeof(log);
		attr.log_level = 1;
	}
	fd = as_result(sys_bpf(BPF_PROG_LOAD, &attr));
	if (verbose && log[0])
		fprintf(stderr, "simfail: verifier log:\n%s", log);
	return fd;
}

static struct outcome case_bad_helper(void)
{
	/* "call bpf_override_return; r0 = 0; exit": a kprobe-only helper,
	 * which a socket filter may not call: check_helper_call asks
	 * sk_filter_func_proto -> bpf_sk_base_func_proto -> bpf_base_func_proto,
	 * all of which fail (NULL), and the verifier returns -EINVAL */
	struct bpf_insn insns[3];
	struct outcome o = { 0, 1 };

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_JMP | BPF_CALL;
	insns[0].imm = BPF_FUNC_override_return;
	insns[1].code = BPF_ALU64 | BPF_MOV | BPF_K;
	insns[1].dst_reg = BPF_REG_0;
	insns[2].code = BPF_JMP | BPF_EXIT;
	o.result = prog_load(insns, 3);
	if (o.result >= 0) {
		close((int)o.result);
		o.result = 0;
	}
	return o;
}

/* loads a socket filter and runs it once on a 64-byte packet through
 * BPF_PROG_TEST_RUN; the case's result is the program's return value */
static struct outcome test_run(const struct bpf_insn *insns, unsigned n)
{
	static uint8_t pkt[64];
	struct outcome o = { 0, 1 };
	union bpf_attr attr;
	long prog = prog_load(insns, n);

	if (prog < 0) {
		fprintf(stderr, "simfail: loading the program failed: %s\n", strerror((int)-prog));
		o.result = prog;
		o.want_failure = 0;
		return o;
	}
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = (uint32_t)prog;
	attr.test.data_in = (uint64_t)(uintptr_t)pkt;
	attr.test.data_size_in = sizeof(pkt);
	attr.test.repeat = 1;
	o.result = as_result(sys_bpf(BPF_PROG_TEST_RUN, &attr));
	if (o.result < 0) {
		fprintf(stderr, "simfail: BPF_PROG_TEST_RUN failed: %s\n", strerror((int)-o.result));
		o.want_failure = 0;
	} else {
		o.result = (int32_t)attr.test.retval;
	}
	close((int)prog);
	return o;
}

static struct outcome case_queue_pop_empty(void)
{
	/* returns bpf_map_pop_elem(queue, &r10[-8]) on an empty queue map:
	 * -ENOENT. The verifier turns the call of a JITed program into a
	 * direct call of queue_map_pop_elem, so bpf_map_pop_elem itself is
	 * not entered (see bpf-skb-load-bytes-bad for a helper that is) */
	struct bpf_insn insns[6];
	struct outcome o = { 0, 1 };
	long map = map_create(BPF_MAP_TYPE_QUEUE, 0, 8, 1, 0);

	if (map < 0) {
		fprintf(stderr, "simfail: creating the queue map failed: %s\n", strerror((int)-map));
		o.result = map;
		o.want_failure = 0;
		return o;
	}
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_LD | BPF_DW | BPF_IMM;      /* r1 = map */
	insns[0].dst_reg = BPF_REG_1;
	insns[0].src_reg = BPF_PSEUDO_MAP_FD;
	insns[0].imm = (int32_t)map;
	insns[2].code = BPF_ALU64 | BPF_MOV | BPF_X;     /* r2 = r10 */
	insns[2].dst_reg = BPF_REG_2;
	insns[2].src_reg = BPF_REG_10;
	insns[3].code = BPF_ALU64 | BPF_ADD | BPF_K;     /* r2 += -8 */
	insns[3].dst_reg = BPF_REG_2;
	insns[3].imm = -8;
	insns[4].code = BPF_JMP | BPF_CALL;
	insns[4].imm = BPF_FUNC_map_pop_elem;
	insns[5].code = BPF_JMP | BPF_EXIT;
	o = test_run(insns, 6);
	close((int)map);
	return o;
}

static struct outcome case_skb_load_bytes_bad(void)
{
	/* returns bpf_skb_load_bytes(skb, 1000, &r10[-8], 4) on a 64-byte
	 * packet: the helper (called as such) fails with -EFAULT */
	struct bpf_insn insns[7];

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;     /* r2 = 1000 */
	insns[0].dst_reg = BPF_REG_2;
	insns[0].imm = 1000;
	insns[1].code = BPF_ALU64 | BPF_MOV | BPF_X;     /* r3 = r10 */
	insns[1].dst_reg = BPF_REG_3;
	insns[1].src_reg = BPF_REG_10;
	insns[2].code = BPF_ALU64 | BPF_ADD | BPF_K;     /* r3 += -8 */
	insns[2].dst_reg = BPF_REG_3;
	insns[2].imm = -8;
	insns[3].code = BPF_ALU64 | BPF_MOV | BPF_K;     /* r4 = 4 */
	insns[3].dst_reg = BPF_REG_4;
	insns[3].imm = 4;
	insns[4].code = BPF_JMP | BPF_CALL;              /* r1 = ctx already */
	insns[4].imm = BPF_FUNC_skb_load_bytes;
	insns[5].code = BPF_JMP | BPF_EXIT;
	return test_run(insns, 6);
}

static struct outcome case_pipe_write(void)
{
	/* write() to a pipe whose read end is closed: -EPIPE (SIGPIPE ignored);
	 * __x64_sys_write tail-calls ksys_write, so it has no stack frame */
	struct outcome o = { 0, 1 };
	int fds[2];

	if (pipe(fds) < 0) {
		fprintf(stderr, "simfail: pipe failed: %s\n", strerror(errno));
		o.result = -(long)errno;
		o.want_failure = 0;
		return o;
	}
	signal(SIGPIPE, SIG_IGN);
	close(fds[0]);
	o.result = as_result(syscall(__NR_write, fds[1], "x", 1));
	close(fds[1]);
	return o;
}

static struct outcome case_simple_map(void)
{
	struct outcome o = { make_array_map(), 0 };

	if (o.result >= 0) {
		close((int)o.result);
		o.result = 0;
	}
	return o;
}

static struct outcome case_open_missing(void)
{
	struct outcome o = { as_result(syscall(__NR_openat, AT_FDCWD, "/nonexistent/simfail", O_RDONLY)), 1 };

	if (o.result >= 0) {
		close((int)o.result);
		o.result = 0;
	}
	return o;
}

static struct outcome case_mkdir_existing(void)
{
	/* /tmp exists on any system (and in the test VM) */
	struct outcome o = { as_result(syscall(__NR_mkdirat, AT_FDCWD, "/tmp", 0755)), 1 };

	return o;
}

static struct outcome case_long_sleep(void)
{
	const char *s = getenv("SIMFAIL_SLEEP_MS");
	long ms = 1000;
	struct outcome o = { 0, 0 };
	char *end;

	if (s && *s) {
		ms = strtol(s, &end, 10);
		if (*end || ms < 0 || ms > 3600 * 1000) {
			fprintf(stderr, "simfail: bad SIMFAIL_SLEEP_MS '%s' (milliseconds, 0..3600000)\n", s);
			o.result = -EINVAL;
			return o;
		}
	}
	if (usleep((useconds_t)(ms * 1000)) < 0)
		o.result = -(long)errno;
	return o;
}

/* write() of 4321 bytes to a descriptor that is not open: -EBADF (the
 * -A tests look for the count) */
static struct outcome case_write_bad_fd(void)
{
	static const char buf[4321];
	struct outcome o = { as_result(syscall(__NR_write, 1000, buf, sizeof(buf))), 1 };

	return o;
}

/* connect() of a TCP socket with a 9-byte IPv4 address: -EINVAL (shorter
 * than struct sockaddr_in; the -A tests look for the length) */
static struct outcome case_connect_bad_addrlen(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(1) };
	struct outcome o = { 0, 1 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0) {
		fprintf(stderr, "simfail: socket failed: %s\n", strerror(errno));
		o.result = -(long)errno;
		o.want_failure = 0;
		return o;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	o.result = as_result(syscall(__NR_connect, fd, &a, 9));
	close(fd);
	return o;
}

struct scase {
	const char *name;
	int bpf;	/* needs RLIMIT_MEMLOCK raised */
	const char *desc;
	struct outcome (*run)(void);
};

static const struct scase cases[] = {
	{ "bpf-bad-map-type", 1, "BPF_MAP_CREATE with map type -1 (EINVAL)", case_bad_map_type },
	{ "bpf-bad-map-create-flags", 1, "BPF_MAP_CREATE of an array with all flags set (EINVAL)", case_bad_map_create_flags },
	{ "bpf-bad-map-key-size-array", 1, "array map with an 8-byte key (EINVAL)", case_bad_map_key_size_array },
	{ "bpf-bad-map-max-entries-array", 1, "array map with zero max entries (EINVAL)", case_bad_map_max_entries_array },
	{ "bpf-bad-map-key-size-ringbuf", 1, "ring buffer map with a 1-byte key (EINVAL)", case_bad_map_key_size_ringbuf },
	{ "bpf-bad-map-val-size-percpu-array", 1, "percpu array whose pointer table exceeds RAM (ENOMEM)", case_bad_map_val_size_percpu_array },
	{ "bpf-bad-map-lookup-key", 1, "BPF_MAP_LOOKUP_ELEM with a NULL key pointer (EFAULT)", case_bad_map_lookup_key },
	{ "bpf-bad-map-lookup-value", 1, "BPF_MAP_LOOKUP_ELEM with a NULL value pointer (EFAULT)", case_bad_map_lookup_value },
	{ "bpf-bad-prog-load", 1, "BPF_PROG_LOAD of a program with an unknown opcode (EINVAL)", case_bad_prog_load },
	{ "bpf-simple-map", 1, "BPF_MAP_CREATE of a small array map (success)", case_simple_map },
	{ "open-missing", 0, "openat(\"/nonexistent/simfail\") (ENOENT)", case_open_missing },
	{ "mkdir-existing", 0, "mkdirat(\"/tmp\") (EEXIST)", case_mkdir_existing },
	{ "syscall-long-sleep", 0, "usleep(SIMFAIL_SLEEP_MS, default 1000 ms) (success)", case_long_sleep },
	{ "pipe-write-no-reader", 0, "write() to a pipe without readers (EPIPE)", case_pipe_write },
	{ "bpf-prog-bad-helper", 1, "BPF_PROG_LOAD of a socket filter calling a kprobe-only helper (EINVAL)", case_bad_helper },
	{ "bpf-queue-pop-empty", 1, "BPF_PROG_TEST_RUN: bpf_map_pop_elem on an empty queue map (ENOENT)", case_queue_pop_empty },
	{ "bpf-skb-load-bytes-bad", 1, "BPF_PROG_TEST_RUN: bpf_skb_load_bytes past the packet's end (EFAULT)", case_skb_load_bytes_bad },
	{ "write-bad-fd", 0, "write() of 4321 bytes to fd 1000, not open (EBADF)", case_write_bad_fd },
	{ "connect-bad-addrlen", 0, "connect() of a TCP socket with a 9-byte address (EINVAL)", case_connect_bad_addrlen },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const struct scase *find_case(const char *name)
{
	for (size_t i = 0; i < NCASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

static void raise_memlock(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	/* kernels >= 5.11 account BPF memory to the memcg; failing is harmless */
	if (setrlimit(RLIMIT_MEMLOCK, &r) < 0 && verbose)
		fprintf(stderr, "simfail: raising RLIMIT_MEMLOCK failed: %s\n", strerror(errno));
}

/* Runs one case, prints its line; returns 1 if it behaved as designed. */
static int run_case(const struct scase *c)
{
	struct outcome o;
	const char *ename;
	int ok;

	if (verbose)
		fprintf(stderr, "simfail: running %s: %s\n", c->name, c->desc);
	if (c->bpf)
		raise_memlock();
	o = c->run();
	if (o.result < 0) {
		ename = strerrorname_np((int)-o.result);
		printf("simfail: %s result=%ld errno=%s\n", c->name, o.result, ename ? ename : "?");
	} else {
		printf("simfail: %s result=0 errno=0\n", c->name);
	}
	fflush(stdout);
	ok = o.want_failure ? o.result < 0 : o.result == 0;
	if (!ok)
		fprintf(stderr, "simfail: %s did not behave as designed (expected %s)\n", c->name,
			o.want_failure ? "a failure" : "success");
	return ok;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: simfail [-v] -l | -a | CASE...\n"
		   "  -l  list the cases\n"
		   "  -a  run every case\n"
		   "  -v  verbose (verifier log, progress on stderr)\n");
}

int main(int argc, char **argv)
{
	int opt, all = 0, list = 0, bad = 0;

	while ((opt = getopt(argc, argv, "alvh")) != -1) {
		switch (opt) {
		case 'a': all = 1; break;
		case 'l': list = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (list) {
		for (size_t i = 0; i < NCASES; i++)
			printf("%-36s %s\n", cases[i].name, cases[i].desc);
		return 0;
	}
	if (!all && optind >= argc) {
		fprintf(stderr, "simfail: no case given (use -l to list them, -a for all)\n");
		return 2;
	}
	/* validate every name before running anything */
	for (int i = optind; i < argc; i++) {
		if (!find_case(argv[i])) {
			fprintf(stderr, "simfail: unknown case '%s' (use -l to list them)\n", argv[i]);
			return 2;
		}
	}
	if (all) {
		for (size_t i = 0; i < NCASES; i++)
			bad += !run_case(&cases[i]);
	}
	for (int i = optind; i < argc; i++)
		bad += !run_case(find_case(argv[i]));
	return bad ? 1 : 0;
}
