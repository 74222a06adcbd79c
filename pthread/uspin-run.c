// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uspin-run - run a program with its pthread mutexes and condition
 * variables on uspin (libuspin-pthread.so in LD_PRELOAD).  See uspin-run(1).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uspin.h"	/* USPIN_POLICY_COUNT; uspin-run does not link libuspin */

#ifndef USPIN_LIBDIR
#define USPIN_LIBDIR "/usr/local/lib"
#endif
#ifndef USPIN_VERSION
#define USPIN_VERSION "?"
#endif
#define DROPIN "libuspin-pthread.so"

/*
 * libuspin's names (libuspin/policy.c), extracted at build time:
 * linking the library would run its constructor in the launcher.
 */
static const char *const policies[] = {
#include "policy_names.h"
};
#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))
_Static_assert(NR_POLICIES == USPIN_POLICY_COUNT,
	       "policy_names.h does not match libuspin/policy.c's table");

static void usage(FILE *f)
{
	fputs(
"Usage: uspin-run [OPTION]... [--] COMMAND [ARG]...\n"
"Run COMMAND with its pthread mutexes and condition variables on uspin.\n"
"\n"
"uspin-run puts libuspin-pthread.so in front of LD_PRELOAD and executes\n"
"COMMAND, which then runs unmodified: pthread_mutex_*, pthread_cond_* and\n"
"the C11 mtx_*/cnd_* calls of the program and of every library it loads\n"
"go to uspin, except mutexes with priority inheritance or protection,\n"
"which stay glibc's.  Child processes inherit the setting.\n"
"\n"
"Options:\n"
"  -p, --policy=POLICY  what a waiting thread does: auto (default: the\n"
"                       best this kernel offers), block, spin,\n"
"                       kernel-adaptive, user-adaptive, or the controls\n"
"                       user-adaptive-bounded and spin-capped (sets\n"
"                       USPIN_POLICY; see uspin-info for what auto is)\n"
"  -w, --wait=KIND      futex-lock (default: the kernel's FUTEX_LOCK where\n"
"                       it exists) or futex-wait (the stock-kernel\n"
"                       protocol; sets USPIN_WAIT)\n"
"      --library=PATH   use this libuspin-pthread.so\n"
"  -q, --quiet          do not warn about commands the preload cannot reach\n"
"      --help           show this help and exit\n"
"      --version        show the version and exit\n"
"\n"
"Environment:\n"
"  USPIN_PTHREAD_LIB    the library to preload, if --library is not given\n"
"  USPIN_POLICY, USPIN_WAIT  as set by --policy and --wait\n"
"\n"
"The library is looked for next to uspin-run, then in ../lib from it, then\n"
"in " USPIN_LIBDIR ".  Statically linked and set-user-ID commands\n"
"ignore LD_PRELOAD; uspin-run warns about them and runs them anyway.\n"
"\n"
"Exit status: COMMAND's; 125 if uspin-run itself fails, 126 if COMMAND\n"
"cannot be executed, 127 if it is not found.\n"
"\n"
"Full documentation: man uspin-run (pthread/uspin-run.1).\n", f);
}

static int die(const char *fmt, const char *arg)
{
	fputs("uspin-run: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'uspin-run --help' for more information.\n", stderr);
	return 125;
}

static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* Where the library is: --library, $USPIN_PTHREAD_LIB, near us, LIBDIR. */
static int find_library(const char *given, char *out, size_t outlen)
{
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	const char *env = getenv("USPIN_PTHREAD_LIB");
	ssize_t n;
	char *slash;

	if (!given && env && *env)
		given = env;
	if (given) {
		if (!realpath(given, out))
			return -1;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(cand, sizeof(cand), "%s/%s", exe, DROPIN);
			if (readable(cand) && realpath(cand, out))
				return 0;
			snprintf(cand, sizeof(cand), "%s/../lib/%s", exe, DROPIN);
			if (readable(cand) && realpath(cand, out))
				return 0;
		}
	}
	snprintf(cand, sizeof(cand), "%s/%s", USPIN_LIBDIR, DROPIN);
	if (readable(cand) && realpath(cand, out))
		return 0;
	(void)outlen;
	return -1;
}

/* COMMAND as execvp would find it, or NULL. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0 ? strdup(cmd) : NULL;
	copy = strdup(path && *path ? path : "/bin:/usr/bin");
	if (!copy)
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", cmd);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			found = strdup(buf);
	}
	free(copy);
	return found;
}

/* Why LD_PRELOAD will not reach @file, or NULL if it will (or unknown). */
static const char *unreachable(const char *file)
{
	struct stat st;
	Elf64_Ehdr eh;
	int fd, i, dynamic = 0;

	if (stat(file, &st) != 0)
		return NULL;
	if (st.st_mode & (S_ISUID | S_ISGID))
		return "set-user-ID or set-group-ID: the loader ignores LD_PRELOAD";
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		close(fd);	/* a script, or not ours to judge */
		return NULL;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    (Elf64_Off)i * eh.e_phentsize)) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			dynamic = 1;
	}
	close(fd);
	return dynamic ? NULL :
	       "statically linked: LD_PRELOAD has no effect, it keeps glibc's mutexes";
}

static int valid_policy(const char *p)
{
	size_t i;

	for (i = 0; i < NR_POLICIES; i++)
		if (strcmp(p, policies[i]) == 0)
			return 1;
	return 0;
}

static int bad_policy(const char *p)
{
	size_t i;

	fprintf(stderr, "uspin-run: '%s' is not a policy (", p);
	for (i = 0; i < NR_POLICIES; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", policies[i]);
	fputs(")\nTry 'uspin-run --help' for more information.\n", stderr);
	return 125;
}

/* --opt=VALUE, --opt VALUE, -o VALUE, -oVALUE (@s may be NULL) */
static const char *optval(int argc, char **argv, int *i, const char *s,
			  const char *l)
{
	const char *a = argv[*i];
	size_t ll = strlen(l);

	if (strncmp(a, l, ll) == 0 && a[ll] == '=')
		return a + ll + 1;
	if (strcmp(a, l) == 0 || (s && strcmp(a, s) == 0))
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (s && strncmp(a, s, 2) == 0 && a[2])
		return a + 2;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *policy = NULL, *wait = NULL, *lib = NULL, *why, *old;
	char libpath[PATH_MAX], *preload, *cmdpath;
	int i, quiet = 0;
	size_t len;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "--version") == 0) {
			printf("uspin-run (uspin) %s\n", USPIN_VERSION);
			return 0;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = 1;
			continue;
		}
		if (strncmp(a, "--policy", 8) == 0 || strncmp(a, "-p", 2) == 0) {
			v = optval(argc, argv, &i, "-p", "--policy");
			if (!v)
				return die("option '%s' needs a policy", a);
			if (!valid_policy(v))
				return bad_policy(v);
			policy = v;
			continue;
		}
		if (strncmp(a, "--wait", 6) == 0 || strncmp(a, "-w", 2) == 0) {
			v = optval(argc, argv, &i, "-w", "--wait");
			if (!v)
				return die("option '%s' needs futex-lock or futex-wait", a);
			if (strcmp(v, "futex-lock") && strcmp(v, "futex-wait"))
				return die("'%s' is not futex-lock or futex-wait", v);
			wait = v;
			continue;
		}
		if (strncmp(a, "--library", 9) == 0) {
			v = optval(argc, argv, &i, NULL, "--library");
			if (!v)
				return die("option '%s' needs a path", a);
			lib = v;
			continue;
		}
		return die("unknown option '%s'", a);
	}
	if (i >= argc)
		return die("%s", "no command given");

	if (find_library(lib, libpath, sizeof(libpath)) != 0)
		return die("cannot find " DROPIN " (%s); give --library or set USPIN_PTHREAD_LIB",
			   lib ? lib : "next to uspin-run, in ../lib, or in " USPIN_LIBDIR);
	old = getenv("LD_PRELOAD");
	len = strlen(libpath) + (old ? strlen(old) + 1 : 0) + 1;
	preload = malloc(len);
	if (!preload)
		return die("%s", strerror(ENOMEM));
	snprintf(preload, len, "%s%s%s", libpath, old && *old ? ":" : "",
		 old && *old ? old : "");
	if (setenv("LD_PRELOAD", preload, 1) != 0 ||
	    (policy && setenv("USPIN_POLICY", policy, 1) != 0) ||
	    (wait && setenv("USPIN_WAIT", wait, 1) != 0))
		return die("cannot set the environment: %s", strerror(errno));

	cmdpath = find_command(argv[i]);
	if (cmdpath && !quiet && (why = unreachable(cmdpath)))
		fprintf(stderr, "uspin-run: warning: %s is %s\n", argv[i], why);
	free(cmdpath);

	execvp(argv[i], &argv[i]);
	fprintf(stderr, "uspin-run: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
