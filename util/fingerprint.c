/*
 * fingerprint.c - the environment fingerprint (fingerprint.h): read from /proc, /sys, uname,
 * the environment and cc; compared field by field.
 */
#include "fingerprint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static const struct {
	const char *name;
	const char *what;
} fields[] = {
#define RN_FINGERPRINT_ROW(id, name, what) { #name, what },
	RN_FINGERPRINT_FIELDS(RN_FINGERPRINT_ROW)
#undef RN_FINGERPRINT_ROW
};

const char *rn_fingerprint_field_name(enum rn_fingerprint_field f)
{
	return (unsigned)f < RN_FP_COUNT ? fields[f].name : NULL;
}

const char *rn_fingerprint_field_what(enum rn_fingerprint_field f)
{
	return (unsigned)f < RN_FP_COUNT ? fields[f].what : NULL;
}

int rn_fingerprint_field_lookup(const char *name)
{
	int i;

	for (i = 0; i < RN_FP_COUNT; i++)
		if (!strcmp(fields[i].name, name))
			return i;
	return -1;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void rn_fingerprint_set(struct rn_fingerprint *fp, enum rn_fingerprint_field f, const char *v)
{
	char *dst;
	size_t n, i;

	if ((unsigned)f >= RN_FP_COUNT)
		return;
	dst = fp->field[f];
	dst[0] = '\0';
	if (!v)
		return;
	while (blank(*v))
		v++;
	n = strlen(v);
	while (n && blank(v[n - 1]))
		n--;
	if (n > RN_FINGERPRINT_FIELD_MAX - 1) {
		n = RN_FINGERPRINT_FIELD_MAX - 1;
		/* never end inside a UTF-8 sequence: back off its continuation bytes */
		while (n && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++)
		dst[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? ' ' : v[i];
	dst[n] = '\0';
}

/* The first `cap` - 1 bytes of root/path into out[cap]; the bytes read, or -1. */
static ssize_t read_small(const char *root, const char *path, char *out, size_t cap)
{
	char full[512];
	ssize_t n = 0, r;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	while ((size_t)n < cap - 1) {
		r = read(fd, out + n, cap - 1 - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	out[n] = '\0';
	return n;
}

/* The first line of root/path into field `f` ("" when unreadable). */
static void read_line_field(struct rn_fingerprint *fp, enum rn_fingerprint_field f,
			    const char *root, const char *path)
{
	char buf[256], *nl;

	if (read_small(root, path, buf, sizeof(buf)) <= 0)
		return;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	rn_fingerprint_set(fp, f, buf);
}

static bool exists(const char *root, const char *path)
{
	char full[512];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", root, path);
	return !stat(full, &st);
}

/* The value of the first line "key<blanks>: value" of cpuinfo text `ci` into out[cap]; false
 * when there is none. */
static bool cpuinfo_value(const char *ci, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = ci; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + klen, *end;
		size_t n;

		if (strncmp(p, key, klen) || (*v != ' ' && *v != '\t' && *v != ':'))
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != ':')
			continue;
		v++;
		end = strchr(v, '\n');
		n = end ? (size_t)(end - v) : strlen(v);
		if (n > cap - 1)
			n = cap - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return true;
	}
	return false;
}

/* Whether the first "flags" line of cpuinfo text `ci` has the word `flag`. */
static bool cpuinfo_flag(const char *ci, const char *flag)
{
	char line[4096];
	size_t n = strlen(flag);
	const char *p;

	if (!cpuinfo_value(ci, "flags", line, sizeof(line)))
		return false;
	for (p = strstr(line, flag); p; p = strstr(p + 1, flag))
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* The container runtime root/ shows, or NULL: marker files first, then PID 1's cgroup path
 * (cgroup v1 names the runtime there; under cgroup v2 a container sees "0::/"). */
static const char *container_of(const char *root)
{
	static const struct {
		const char *needle, *name;
	} cgroups[] = { { "/docker", "docker" },
			{ "kubepods", "kubernetes" },
			{ "/lxc", "lxc" },
			{ "libpod", "podman" },
			{ "containerd", "containerd" } };
	char buf[4096];
	size_t i;

	if (exists(root, "/.dockerenv"))
		return "docker";
	if (exists(root, "/run/.containerenv"))
		return "podman";
	if (read_small(root, "/proc/1/cgroup", buf, sizeof(buf)) > 0)
		for (i = 0; i < sizeof(cgroups) / sizeof(cgroups[0]); i++)
			if (strstr(buf, cgroups[i].needle))
				return cgroups[i].name;
	return NULL;
}

/* The hypervisor root/ shows, or NULL: the DMI product and vendor names, else "vm" when the
 * CPU flags carry "hypervisor" (set by every hypervisor that follows the CPUID convention). */
static const char *hypervisor_of(const char *root, const char *cpuinfo)
{
	static const struct {
		const char *needle, *name;
	} dmi[] = { { "KVM", "kvm" },
		    { "QEMU", "qemu" },
		    { "VirtualBox", "oracle" },
		    { "VMware", "vmware" },
		    { "Virtual Machine", "microsoft" },
		    { "Microsoft Corporation", "microsoft" },
		    { "Google Compute Engine", "google" },
		    { "Amazon EC2", "amazon" },
		    { "HVM domU", "xen" },
		    { "Xen", "xen" },
		    { "BHYVE", "bhyve" } };
	char prod[256] = "", vendor[256] = "";
	size_t i;

	(void)read_small(root, "/sys/class/dmi/id/product_name", prod, sizeof(prod));
	(void)read_small(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	for (i = 0; i < sizeof(dmi) / sizeof(dmi[0]); i++)
		if (strstr(prod, dmi[i].needle) || strstr(vendor, dmi[i].needle))
			return dmi[i].name;
	if (cpuinfo_flag(cpuinfo, "hypervisor"))
		return "vm";
	return NULL;
}

/* "on"/"off" for a sysfs 0/1 file (inverted: 1 means off), or NULL. */
static const char *on_off(const char *root, const char *path, bool inverted)
{
	char buf[16];

	if (read_small(root, path, buf, sizeof(buf)) <= 0 || (buf[0] != '0' && buf[0] != '1'))
		return NULL;
	return (buf[0] == '1') != inverted ? "on" : "off";
}

void rn_fingerprint_host(struct rn_fingerprint *fp, const char *root)
{
	char cpuinfo[16384], v[512];
	const char *ctr, *hv, *s, *os, *ver;
	struct utsname u;

	if (!root)
		root = "";
	memset(fp, 0, sizeof(*fp));
	/* the first CPU's block is at the start: its model, microcode and flags */
	if (read_small(root, "/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) < 0)
		cpuinfo[0] = '\0';
	if (cpuinfo_value(cpuinfo, "model name", v, sizeof(v)))
		rn_fingerprint_set(fp, RN_FP_CPU_MODEL, v);
	if (cpuinfo_value(cpuinfo, "microcode", v, sizeof(v)))
		rn_fingerprint_set(fp, RN_FP_MICROCODE, v);
	if (!*root && !uname(&u))
		rn_fingerprint_set(fp, RN_FP_KERNEL, u.release);
	else if (*root)
		read_line_field(fp, RN_FP_KERNEL, root, "/proc/sys/kernel/osrelease");
	read_line_field(fp, RN_FP_GOVERNOR, root,
			"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
	if (!fp->field[RN_FP_GOVERNOR][0])
		read_line_field(fp, RN_FP_GOVERNOR, root,
				"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	s = on_off(root, "/sys/devices/system/cpu/cpufreq/boost", false);
	if (!s)
		s = on_off(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", true);
	rn_fingerprint_set(fp, RN_FP_BOOST, s);
	rn_fingerprint_set(fp, RN_FP_SMT,
			   on_off(root, "/sys/devices/system/cpu/smt/active", false));
	ctr = container_of(root);
	hv = hypervisor_of(root, cpuinfo);
	if (ctr && hv)
		snprintf(v, sizeof(v), "%s in %s", ctr, hv);
	else
		snprintf(v, sizeof(v), "%s", ctr ? ctr : hv ? hv : "none");
	rn_fingerprint_set(fp, RN_FP_VIRT, v);
	/* GitHub-hosted runners name their image in the environment of every step */
	os = getenv("ImageOS");
	ver = getenv("ImageVersion");
	if ((os && *os) || (ver && *ver)) {
		snprintf(v, sizeof(v), "%s/%s", os ? os : "", ver ? ver : "");
		rn_fingerprint_set(fp, RN_FP_IMAGE, v);
	}
	rn_fingerprint_set(fp, RN_FP_RENACER, RN_VERSION);
}

void rn_fingerprint_default_compiler(struct rn_fingerprint *fp)
{
	static const char *const argv[] = { "cc", "--version", NULL };
	char buf[512], *nl;
	size_t n = 0;
	ssize_t r;
	int fds[2], status = 0;
	pid_t pid;

	fp->field[RN_FP_COMPILER][0] = '\0';
	if (pipe(fds))
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(fds[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		close(fds[0]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	/* read to the end: a writer left blocked on a full pipe would never exit */
	for (;;) {
		char scratch[256];
		bool room = n < sizeof(buf) - 1;

		r = read(fds[0], room ? buf + n : scratch,
			 room ? sizeof(buf) - 1 - n : sizeof(scratch));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (room)
			n += (size_t)r;
	}
	buf[n] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	rn_fingerprint_set(fp, RN_FP_COMPILER, buf);
}

unsigned rn_fingerprint_diff(const struct rn_fingerprint *recorded,
			     const struct rn_fingerprint *now)
{
	unsigned mask = 0;
	int i;

	for (i = 0; i < RN_FP_COUNT; i++)
		if (recorded->field[i][0] && now->field[i][0] &&
		    strcmp(recorded->field[i], now->field[i]))
			mask |= 1u << i;
	return mask;
}

void rn_fingerprint_describe_diff(struct rn_buf *b, const struct rn_fingerprint *recorded,
				  const struct rn_fingerprint *now, unsigned mask,
				  const char *now_word)
{
	const char *sep = "";
	int i;

	for (i = 0; i < RN_FP_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		rn_buf_addf(b, "%s%s '%.80s', %s '%.80s'", sep, fields[i].name, recorded->field[i],
			    now_word, now->field[i]);
		sep = "; ";
	}
}

void rn_fingerprint_add_names(struct rn_buf *b, unsigned mask)
{
	const char *sep = "";
	int i;

	for (i = 0; i < RN_FP_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		rn_buf_addf(b, "%s%s", sep, fields[i].name);
		sep = ", ";
	}
}

void rn_fingerprint_add_text(struct rn_buf *b, const struct rn_fingerprint *fp)
{
	const char *sep = "";
	int i;

	for (i = 0; i < RN_FP_COUNT; i++) {
		if (!fp->field[i][0])
			continue;
		rn_buf_addf(b, "%s%s=%s", sep, fields[i].name, fp->field[i]);
		sep = "; ";
	}
}

bool rn_fingerprint_known(const struct rn_fingerprint *fp)
{
	int i;

	for (i = 0; i < RN_FP_COUNT; i++)
		if (fp->field[i][0])
			return true;
	return false;
}
