// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of libptipmi and libptplatform that need no BMC: the
 * completion code table, the platform parser (shipped files, a table of
 * malformed files each refused with its line and reason, status decoding),
 * the credentials file rules, the in-band open errors and the cipher suite
 * checks of the LAN open. Run from the repository root (platforms/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipmi.h"
#include "platform_ipmi.h"
#include "tap.h"

static char tmpdir[] = "/tmp/pt-ipmi-unit.XXXXXX";

static const char *write_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);		/* a fresh file: owner and mode as created */
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static void test_cc(void)
{
	tap_streq(pt_ipmi_cc_str(0xC0), "node busy", "cc 0xC0 is node busy");
	tap_streq(pt_ipmi_cc_str(0xC1), "invalid command",
		  "cc 0xC1 is invalid command");
	tap_ok(strstr(pt_ipmi_cc_str(0xC3), "timeout") != NULL,
	       "cc 0xC3 mentions timeout (%s)", pt_ipmi_cc_str(0xC3));
	tap_streq(pt_ipmi_cc_str(0xC7), "request data length invalid",
		  "cc 0xC7 is request data length invalid");
	tap_streq(pt_ipmi_cc_str(0xCC), "invalid data field in request",
		  "cc 0xCC is invalid data field in request");
	tap_streq(pt_ipmi_cc_str(0xD4), "insufficient privilege level",
		  "cc 0xD4 is insufficient privilege level");
	tap_streq(pt_ipmi_cc_str(0xD5), "command not supported in present state",
		  "cc 0xD5 is command not supported in present state");
	tap_streq(pt_ipmi_cc_str(0xFF), "unspecified error",
		  "cc 0xFF is unspecified error");
	tap_ok(strstr(pt_ipmi_cc_str(0x01), "OEM") != NULL,
	       "cc 0x01 is an OEM code");
	tap_ok(strstr(pt_ipmi_cc_str(0x81), "command specific") != NULL,
	       "cc 0x81 is command specific");
}

static void test_good_platforms(void)
{
	struct pt_platform p;
	char err[PT_PLAT_ERRLEN];
	int ret;

	ret = pt_platform_load("platforms/emulated-switchfw.conf", &p, err,
			       sizeof(err));
	tap_eq(ret, 0, "emulated-switchfw.conf loads");
	if (ret)
		tap_diag("%s", err);
	tap_ok(p.method == PT_PLAT_METHOD_SWITCHFW &&
	       p.apply == PT_PLAT_APPLY_POWER_CYCLE,
	       "switchfw: method switchfw, applied by power cycle");
	tap_ok(pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_CASCADE].select.netfn == 0x3c &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_CASCADE].select.cmd == 0x10 &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_CASCADE].select.len == 1 &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_CASCADE].select.data[0] == 3,
	       "switchfw: select cascade is 0x3c 0x10 [03]");
	tap_ok(pt_plat_ipmi(&p)->status.request.cmd == 0x11 &&
	       pt_plat_ipmi(&p)->status.length == 5 &&
	       pt_plat_ipmi(&p)->status.pending_off == 2 &&
	       pt_plat_ipmi(&p)->status.error_off == 4,
	       "switchfw: status 0x3c 0x11, 5 bytes, pending at 2, error at 4");
	tap_ok(p.ngpus == 4 && p.gpus[0] == 4 && p.gpus[3] == 7 &&
	       p.switch_index == 1, "switchfw: GPU4-7 behind switch 1 move");
	tap_ok(p.nunits == 3 && !strcmp(p.units[2],
					"nvidia-fabricmanager.service"),
	       "switchfw: three units to stop");
	tap_ok(p.nids == 1 && p.gpu_ids[0].vendor == 0x1234 &&
	       p.gpu_ids[0].device == 0x1111, "switchfw: extra GPU ID 1234:1111");
	tap_ok(!p.rollback_select_always,
	       "switchfw: moves.rollback_select defaults to \"if-moved\"");

	ret = pt_platform_load("platforms/emulated-mux.conf", &p, err,
			       sizeof(err));
	tap_eq(ret, 0, "emulated-mux.conf loads");
	if (ret)
		tap_diag("%s", err);
	tap_ok(p.method == PT_PLAT_METHOD_MUX && p.apply == PT_PLAT_APPLY_ONLINE &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_COMMON].select.cmd == 0x20 &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_COMMON].select.len == 2 &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_COMMON].select.data[0] == 0x01 &&
	       pt_plat_ipmi(&p)->layouts[PCITOPO_LAYOUT_COMMON].select.data[1] == 0x02,
	       "mux: online, select common is 0x3c 0x20 [01 02]");
	tap_ok(p.rollback_select_always,
	       "mux: a rollback selects again for slots taken down "
	       "(moves.rollback_select = \"always\": QEMU drops the card)");

	ret = pt_platform_load("platforms/template.conf", &p, err, sizeof(err));
	tap_eq(ret, 0, "template.conf parses");
	if (ret)
		tap_diag("%s", err);
	tap_ok(!ret && p.transport == &pt_plat_ipmi_transport &&
	       !strcmp(pt_platform_transport_name(&p), "ipmi"),
	       "template.conf: transport ipmi, named in the file");
	ret = pt_platform_load("platforms/emulated-mux.conf", &p, err,
			       sizeof(err));
	tap_ok(!ret && p.transport == &pt_plat_ipmi_transport,
	       "emulated-mux.conf, which names no transport: ipmi, the default");
}

/* A valid file, one setting a line, so a case can replace line N. */
static const char *const base[] = {
	/*  1 */ "name = \"t\";",
	/*  2 */ "match = { vendor = \"V\"; model = \"M\"; };",
	/*  3 */ "method = \"switchfw\";",
	/*  4 */ "apply = \"power-cycle\";",
	/*  5 */ "layouts = {",
	/*  6 */ "  balance = { code = 1; gpus = 8; select = { netfn = 0x3c; cmd = 0x10; data = [ 1 ]; }; };",
	/*  7 */ "  cascade = { code = 3; gpus = 8; select = { netfn = 0x3c; cmd = 0x10; data = [ 3 ]; }; };",
	/*  8 */ "};",
	/*  9 */ "status = {",
	/* 10 */ "  request = { netfn = 0x3c; cmd = 0x11; data = [ ]; };",
	/* 11 */ "  length = 5;",
	/* 12 */ "  state = 0;",
	/* 13 */ "  current = 1;",
	/* 14 */ "  pending = 2;",
	/* 15 */ "  states = { idle = 0; busy = 1; done = 2; failed = 3; };",
	/* 16 */ "};",
	/* 17 */ "moves = { switch = 1; gpus = [ 4, 5, 6, 7 ]; };",
	/* 18 */ "budgets = { bmc_job_ms = 10000; reenumerate_ms = 1000; power_cycle_ms = 60000; };",
	/* 19 */ "stop_units = [ \"nvidia-dcgm.service\" ];",
	/* 20 */ "gpu_ids = [ \"1af4:1050\" ];",
};
#define NBASE ((int)(sizeof(base) / sizeof(base[0])))

static const struct {
	const char *what;
	int line;		/* replaced line (1-based) */
	const char *text;	/* its replacement */
	int err_line;		/* line the message must name */
	const char *reason;	/* text the message must contain */
} bad[] = {
	{ "syntax error (= =)", 3, "method = = \"switchfw\";", 3,
	  "syntax error" },
	{ "syntax error (unclosed group: end of file)", 8, "", 21,
	  "syntax error" },
	{ "unknown method", 3, "method = \"magic\";", 3,
	  "unknown method \"magic\"" },
	{ "unknown apply", 4, "apply = \"reboot\";", 4, "unknown apply" },
	{ "unknown transport: refused with the known ones", 3,
	  "method = \"switchfw\"; transport = \"snmp\";", 3,
	  "transport \"snmp\": unknown (known: ipmi, redfish)" },
	{ "transport not a string", 3,
	  "method = \"switchfw\"; transport = 1;", 3,
	  "transport must be a string" },

	{ "a layout missing (only one left)", 7, "", 5,
	  "at least two" },
	{ "layout without select", 7,
	  "  cascade = { code = 3; gpus = 8; };", 7,
	  "layouts.cascade.select missing" },
	{ "unknown layout name", 7,
	  "  diagonal = { code = 3; gpus = 8; select = { netfn = 0x3c; cmd = 0x10; data = [ 3 ]; }; };",
	  7, "unknown layout" },
	{ "two layouts with one code", 7,
	  "  cascade = { code = 1; gpus = 8; select = { netfn = 0x3c; cmd = 0x10; data = [ 3 ]; }; };",
	  5, "same code 1" },
	{ "data byte > 0xff", 6,
	  "  balance = { code = 1; gpus = 8; select = { netfn = 0x3c; cmd = 0x10; data = [ 0x100 ]; }; };",
	  6, "layouts.balance.select.data[0] = 256 is not a byte" },
	{ "odd (response) netfn", 10,
	  "  request = { netfn = 0x3d; cmd = 0x11; data = [ ]; };", 10,
	  "not a request NetFn" },
	{ "status offset beyond the response length", 14, "  pending = 5;",
	  14, "status.pending = 5 is beyond the response length" },
	{ "status length 0", 11, "  length = 0;", 11, "out of range" },
	{ "pending missing with power-cycle", 14, "", 9,
	  "status.pending missing" },
	{ "state values not distinct", 15,
	  "  states = { idle = 0; busy = 1; done = 1; failed = 3; };", 15,
	  "same value 1" },
	{ "negative budget", 18,
	  "budgets = { bmc_job_ms = -5; reenumerate_ms = 1000; power_cycle_ms = 60000; };",
	  18, "budgets.bmc_job_ms = -5 must not be negative" },
	{ "string where an integer belongs", 11, "  length = \"5\";", 11,
	  "status.length must be an integer" },
	{ "unknown key (typo)", 17,
	  "moves = { switch = 1; gpu = [ 4, 5, 6, 7 ]; };", 17,
	  "unknown key \"moves.gpu\"" },
	{ "nothing moves", 17, "moves = { switch = 1; };", 17,
	  "nothing would move" },
	{ "rollback_select neither if-moved nor always", 17,
	  "moves = { switch = 1; gpus = [ 4 ]; rollback_select = \"never\"; };",
	  17, "expected \"if-moved\" or \"always\"" },
	{ "bad unit name", 19, "stop_units = [ \"nvidia-dcgm\" ];", 19,
	  "not a systemd unit" },
	{ "bad GPU ID", 20, "gpu_ids = [ \"1af4-1050\" ];", 20,
	  "vvvv:dddd" },
	{ "GPU ID with 0x (sscanf took it)", 20, "gpu_ids = [ \"0x12:1050\" ];", 20,
	  "vvvv:dddd" },
	{ "GPU ID with a kind", 20, "gpu_ids = [ \"1af4:1050:gpu\" ];", 20,
	  "vvvv:dddd" },
	{ "name missing", 1, "", 0, "name missing" },
};

static void test_bad_platforms(void)
{
	struct pt_platform p;
	char err[PT_PLAT_ERRLEN], text[8192], want[64];
	const char *path;
	int ret;

	/* The base itself must load, or every case below proves nothing. */
	text[0] = '\0';
	for (int i = 0; i < NBASE; i++) {
		strcat(text, base[i]);
		strcat(text, "\n");
	}
	path = write_file("base.conf", text, 0644);
	ret = pt_platform_load(path, &p, err, sizeof(err));
	tap_eq(ret, 0, "the base of the malformed cases loads");
	if (ret)
		tap_diag("%s", err);

	for (size_t c = 0; c < sizeof(bad) / sizeof(bad[0]); c++) {
		text[0] = '\0';
		for (int i = 0; i < NBASE; i++) {
			strcat(text, i + 1 == bad[c].line ? bad[c].text :
			       base[i]);
			strcat(text, "\n");
		}
		path = write_file("bad.conf", text, 0644);
		ret = pt_platform_load(path, &p, err, sizeof(err));
		if (bad[c].err_line)
			snprintf(want, sizeof(want), "%s:%d: ", path,
				 bad[c].err_line);
		else
			snprintf(want, sizeof(want), "%s: ", path);
		tap_ok(ret == -EINVAL && !strncmp(err, want, strlen(want)) &&
		       strstr(err, bad[c].reason),
		       "refused: %s (line %d, \"%s\")", bad[c].what,
		       bad[c].err_line, bad[c].reason);
		if (ret != -EINVAL || strncmp(err, want, strlen(want)) ||
		    !strstr(err, bad[c].reason))
			tap_diag("ret %d, message: %s", ret, err);
		tap_ok(ret != 0 && p.name[0] == '\0',
		       "refused file leaves no half-filled platform (%s)",
		       bad[c].what);
	}

	ret = pt_platform_load("/nonexistent/x.conf", &p, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent/x.conf"),
	       "missing platform file: -ENOENT naming the file");
}

static void test_decode(void)
{
	struct pt_platform p;
	struct pt_plat_job job;
	char err[PT_PLAT_ERRLEN];
	const uint8_t busy[] = { 1, 2, 3, 7, 0 };
	const uint8_t done[] = { 2, 1, 0, 8, 0 };

	if (pt_platform_load("platforms/emulated-switchfw.conf", &p, err,
			     sizeof(err))) {
		tap_ok(0, "decode: platform loads (%s)", err);
		return;
	}
	tap_ok(!pt_plat_ipmi_decode_status(&p, busy, sizeof(busy), &job, err,
					  sizeof(err)) &&
	       job.state == PT_PLAT_STATE_BUSY &&
	       job.current == PCITOPO_LAYOUT_COMMON &&
	       job.pending == PCITOPO_LAYOUT_CASCADE && job.job == 7 &&
	       job.error == 0,
	       "decode 01 02 03 07 00: busy, current common, pending cascade, job 7");
	tap_ok(!pt_plat_ipmi_decode_status(&p, done, sizeof(done), &job, err,
					  sizeof(err)) &&
	       job.state == PT_PLAT_STATE_DONE &&
	       job.current == PCITOPO_LAYOUT_BALANCE &&
	       job.pending == PCITOPO_LAYOUT_UNKNOWN,
	       "decode 02 01 00 08 00: done, current balance, nothing pending");
	tap_eq(pt_plat_ipmi_decode_status(&p, busy, 3, &job, err, sizeof(err)),
	       -EBADMSG, "decode: a 3-byte answer to a 5-byte status is refused");
}

static void test_creds(void)
{
	struct pt_ipmi_creds c;
	char err[PT_IPMI_ERRLEN];
	const char *path;
	int ret;

	path = write_file("bmc.conf", "# BMC\nuser=admin\npassword=s3cret\n",
			  0600);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == 0 && !strcmp(c.user, "admin") &&
	       !strcmp(c.password, "s3cret"), "creds: mode 0600 file loads");

	path = write_file("bmc.conf", "user=admin\npassword=s3cret\n", 0644);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == -EPERM && strstr(err, path) && strstr(err, "0644") &&
	       c.password[0] == '\0',
	       "creds: world-readable file (0644) refused, message names "
	       "file and mode");
	if (ret != -EPERM)
		tap_diag("ret %d: %s", ret, err);

	path = write_file("bmc.conf", "user=admin\npassword=s3cret\n", 0640);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == -EPERM && strstr(err, "0640"),
	       "creds: group-readable file (0640) refused");

	path = write_file("bmc.conf", "user=admin\npassword=s3cret\n", 0600);
	if (geteuid() == 0 && chown(path, 65534, 65534) == 0) {
		ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
		tap_ok(ret == -EPERM && strstr(err, "uid 65534"),
		       "creds: file owned by another user refused");
	} else {
		tap_diag("not root: owner check skipped");
	}

	path = write_file("bmc.conf",
			  "user = \"admin\";\npassword = \"s3 cret\";\n", 0400);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == 0 && !strcmp(c.password, "s3 cret"),
	       "creds: platform-file spelling user = \"...\"; accepted");

	path = write_file("bmc.conf", "user=admin\n", 0600);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "no password"),
	       "creds: a file without password refused");

	path = write_file("bmc.conf",
			  "user=admin\npassword=123456789012345678901\n", 0600);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":2: ") && strstr(err, "20"),
	       "creds: 21-byte password refused at line 2 (IPMI max 20)");

	path = write_file("bmc.conf", "user=admin\npasswd=x\n", 0600);
	ret = pt_ipmi_creds_load(path, &c, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, ":2: unknown key"),
	       "creds: unknown key refused with its line");

	ret = pt_ipmi_creds_load("/nonexistent/bmc.conf", &c, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent/bmc.conf"),
	       "creds: missing file -ENOENT naming it");
}

static void test_inband(void)
{
	struct pt_ipmi *h = (struct pt_ipmi *)1;
	char err[PT_IPMI_ERRLEN];
	int ret;

	ret = pt_ipmi_open_inband(&h, "/dev/pt-no-such-ipmi", NULL, err,
				  sizeof(err));
	tap_ok(ret == -ENOENT && h == NULL &&
	       strstr(err, "/dev/pt-no-such-ipmi") &&
	       strstr(err, "no such device"),
	       "in-band: missing device -ENOENT, message names it");
	if (ret != -ENOENT)
		tap_diag("ret %d: %s", ret, err);
	ret = pt_ipmi_open_inband(&h, "/dev/null", NULL, err, sizeof(err));
	tap_ok(ret == -ENOTTY && strstr(err, "/dev/null") &&
	       strstr(err, "not an IPMI device"),
	       "in-band: /dev/null is refused as not an IPMI device");
	if (ret != -ENOTTY)
		tap_diag("ret %d: %s", ret, err);
}

static void test_suites(void)
{
	struct pt_ipmi_creds c = { .user = "admin", .password = "x" };
	struct pt_ipmi *h;
	char err[PT_IPMI_ERRLEN];
	int ret;

	/* Refused before anything is sent: no BMC needed. */
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", 9, &c, 17, NULL, err,
			       sizeof(err));
	tap_ok(ret == -EPROTONOSUPPORT && strstr(err, "127.0.0.1:9") &&
	       strstr(err, "cipher suite 17") && strstr(err, "HMAC-SHA256") &&
	       strstr(err, "libOpenIPMI"),
	       "cipher suite 17 refused: libOpenIPMI has no HMAC-SHA256");
	tap_diag("%s", err);
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", 9, &c, 4, NULL, err,
			       sizeof(err));
	tap_ok(ret == -EPROTONOSUPPORT && strstr(err, "xRC4"),
	       "cipher suite 4 (xRC4) refused");
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", 9, &c, 20, NULL, err,
			       sizeof(err));
	tap_eq(ret, -EINVAL, "cipher suite 20 does not exist");
}

int main(void)
{
	char cmd[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_cc();
	test_good_platforms();
	test_bad_platforms();
	test_decode();
	test_creds();
	test_inband();
	test_suites();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", tmpdir);
	return tap_done();
}
