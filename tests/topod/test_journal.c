// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod's journal and committed state (daemon/topod/journal.c): what a
 * restart after a crash reads back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "journal.h"
#include "tap.h"

static char dir[] = "/tmp/topod-journal.XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

int main(void)
{
	struct tj_job j = { 0 }, back;
	struct tj_committed c = { 0 }, cb;
	unsigned int line = 0;

	if (!mkdtemp(dir))
		return 1;

	tap_eq(tj_job_read(dir, &back, NULL), -ENOENT,
	       "no journal: -ENOENT (nothing in flight)");

	j.state = TJ_SWITCHING;
	strcpy(j.phase, "detach");
	j.from = PCITOPO_LAYOUT_BALANCE;
	j.to = PCITOPO_LAYOUT_CASCADE;
	j.flags = 3;
	j.bmc_sent = 1;
	j.bmc_current = PCITOPO_LAYOUT_BALANCE;
	j.bmc_pending = PCITOPO_LAYOUT_UNKNOWN;
	j.started_usec = 1234567890123ULL;
	j.nunits = 2;
	strcpy(j.units[0], "nvidia-dcgm.service");
	strcpy(j.units[1], "nvidia-persistenced.service");
	j.nports = 2;
	strcpy(j.ports[0], "0000:82:00.0");
	strcpy(j.ports[1], "0000:82:01.0");
	j.nslots = 2;
	strcpy(j.slots[0].port, "0000:82:00.0");
	j.slots[0].how = TJ_SLOT_POWER;
	strcpy(j.slots[1].port, "0000:82:01.0");
	j.slots[1].how = TJ_SLOT_LINK;
	strcpy(j.error, "line one\nline two");
	j.rollback_failed = 1;
	strcpy(j.rollback_error, "rollback-verify: GPU4 link x0");
	j.nunbound = 2;
	strcpy(j.unbound[0].addr, "0000:27:00.0");
	strcpy(j.unbound[0].driver, "bochs-drm");
	strcpy(j.unbound[1].addr, "0000:28:00.0");
	strcpy(j.unbound[1].driver, "nvidia");
	j.ngpus = 2;
	strcpy(j.gpus[0].addr, "0000:23:00.0");
	strcpy(j.gpus[0].parent, "0000:13:00.0");
	j.gpus[0].link_max_speed = 32000;
	j.gpus[0].link_max_width = 16;
	j.gpus[0].link_flags = 3;
	strcpy(j.gpus[1].addr, "0000:24:00.0");	/* no parent known */
	j.gpus[1].link_max_speed = 2500;
	j.gpus[1].link_max_width = 1;
	strcpy(j.boot_id, "0b5e1d2c-1111-2222-3333-444455556666");
	tap_eq(tj_job_write(dir, &j), 0, "journal written");
	tap_eq(count_files(), 1, "atomic write leaves no temp file");
	tap_eq(tj_job_read(dir, &back, NULL), 0, "journal read back");
	tap_ok(back.state == TJ_SWITCHING && !strcmp(back.phase, "detach") &&
	       back.from == PCITOPO_LAYOUT_BALANCE &&
	       back.to == PCITOPO_LAYOUT_CASCADE && back.flags == 3 &&
	       back.bmc_sent == 1 && back.started_usec == 1234567890123ULL,
	       "state, phase, layouts, flags, select sent, start time survive");
	tap_ok(back.bmc_current == PCITOPO_LAYOUT_BALANCE &&
	       back.bmc_pending == PCITOPO_LAYOUT_UNKNOWN,
	       "what the BMC reported after the Select survives (a rollback decides by it)");
	tap_ok(back.nunits == 2 && !strcmp(back.units[1],
					   "nvidia-persistenced.service") &&
	       back.nports == 2 && !strcmp(back.ports[1], "0000:82:01.0"),
	       "stopped units and detached ports survive (what recovery undoes)");
	tap_ok(back.nslots == 2 && !strcmp(back.slots[0].port, "0000:82:00.0") &&
	       back.slots[0].how == TJ_SLOT_POWER &&
	       !strcmp(back.slots[1].port, "0000:82:01.0") &&
	       back.slots[1].how == TJ_SLOT_LINK,
	       "the slots taken down and how survive (what every path brings up)");
	tap_streq(back.error, "line one line two",
		  "an error with a newline stays one line");
	tap_ok(back.rollback_failed == 1 &&
	       !strcmp(back.rollback_error, "rollback-verify: GPU4 link x0"),
	       "a failed rollback and its error survive, apart from the first error");
	tap_ok(back.nunbound == 2 && !strcmp(back.unbound[0].addr, "0000:27:00.0") &&
	       !strcmp(back.unbound[0].driver, "bochs-drm") &&
	       !strcmp(back.unbound[1].driver, "nvidia"),
	       "the devices quiesce unbound and their drivers survive (what every path binds again)");
	tap_ok(back.ngpus == 2 && !strcmp(back.gpus[0].parent, "0000:13:00.0") &&
	       back.gpus[0].link_max_speed == 32000 &&
	       back.gpus[0].link_max_width == 16 && back.gpus[0].link_flags == 3 &&
	       !strcmp(back.gpus[1].addr, "0000:24:00.0") && !*back.gpus[1].parent &&
	       back.gpus[1].link_max_width == 1,
	       "the GPUs' links before the switch survive (what recovery verifies against)");
	tap_streq(back.boot_id, "0b5e1d2c-1111-2222-3333-444455556666",
		  "the boot id survives (was the host restarted?)");

	j.state = TJ_AWAITING_POWER_CYCLE;
	strcpy(j.phase, "power-cycle");
	j.nports = 0;
	tap_eq(tj_job_write(dir, &j), 0, "journal rewritten at the next phase");
	tap_eq(tj_job_read(dir, &back, NULL), 0, "and read");
	tap_ok(back.state == TJ_AWAITING_POWER_CYCLE && back.nports == 0 &&
	       !strcmp(back.phase, "power-cycle"),
	       "the rewrite replaced the old contents");

	put("job", "version=1\nstate=switching\nphase=bmc\nfrom=balance\n"
	    "to=cascade\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "a torn journal (no end marker) is refused");
	{
		char newer[64];

		snprintf(newer, sizeof(newer),
			 "version=%d\nstate=switching\nend=1\n", TJ_VERSION + 1);
		put("job", newer);
	}
	tap_eq(tj_job_read(dir, &back, &line), -EPROTONOSUPPORT,
	       "a journal of a newer version is refused as such");
	put("job", "version=3\nstate=rolling-back\nbmc_sent=1\nend=1\n");
	tap_ok(tj_job_read(dir, &back, &line) == 0 && back.bmc_sent == 1 &&
	       back.bmc_current == PCITOPO_LAYOUT_UNKNOWN,
	       "a version 3 journal is read: no BMC report (a rollback asks the BMC)");
	put("job", "version=1\nstate=switching\nphase=bmc\nfrom=balance\n"
	    "to=cascade\nend=1\n");
	tap_ok(tj_job_read(dir, &back, &line) == 0 && back.ngpus == 0 &&
	       back.nunbound == 0, "a version 1 journal is read (no links, nothing unbound)");
	put("job", "version=2\nstate=switching\nunbound=0000:27:00.0\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "an unbound device without its driver is refused");
	put("job", "version=2\nstate=switching\ngpus=0000:23:00.0//x/1/3\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "a GPU with a bad link figure is refused");
	put("job", "version=3\nstate=switching\nslots=0000:82:00.0/off\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "a slot taken down in an unknown way is refused");
	put("job", "version=1\nstate=switching\nfrom=sideways\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "an unknown layout is refused");
	tap_eq(line, 3, "and the line is named");
	put("job", "version=1\nstate=switching\nbogus=1\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "an unknown key is refused");
	put("job", "version=1\nphase=bmc\nend=1\n");
	tap_eq(tj_job_read(dir, &back, &line), -EBADMSG,
	       "a journal without a state is refused");

	/* an unreadable journal set aside, twice in the same second: the
	 * second does not write over the first */
	{
		char n1[64], n2[64], path[256], buf[64] = "";
		FILE *f;

		put("job", "garbage one\n");
		tap_eq(tj_job_set_aside(dir, n1, sizeof(n1)), 0,
		       "an unreadable journal set aside");
		tap_ok(!strncmp(n1, "job.corrupt-", 12) && strlen(n1) == 28 &&
		       n1[20] == 'T' && n1[27] == 'Z',
		       "named job.corrupt-YYYYMMDDTHHMMSSZ (%s)", n1);
		tap_eq(tj_job_read(dir, &back, NULL), -ENOENT,
		       "no journal left in its place");
		put("job", "garbage two\n");
		tap_ok(tj_job_set_aside(dir, n2, sizeof(n2)) == 0 &&
		       strcmp(n1, n2), "a second one gets a name of its own "
		       "(%s)", n2);
		snprintf(path, sizeof(path), "%s/%s", dir, n1);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		tap_streq(buf, "garbage one\n", "the first kept as it was");
		tap_eq(tj_job_set_aside(dir, n2, sizeof(n2)), -ENOENT,
		       "no journal: -ENOENT");
		snprintf(path, sizeof(path), "%s/%s", dir, n1);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, n2);
		unlink(path);
		put("job", "version=1\nphase=bmc\nend=1\n");
	}

	tap_eq(tj_job_remove(dir), 0, "journal removed");
	tap_eq(tj_job_read(dir, &back, NULL), -ENOENT, "and gone");
	tap_eq(tj_job_remove(dir), 0, "removing it again is fine");

	tap_eq(tj_committed_read(dir, &cb), -ENOENT, "no committed state yet");
	c.layout = PCITOPO_LAYOUT_COMMON;
	c.generation = 7;
	strcpy(c.last_error, "BMC job 3 failed (error 2)");
	tap_eq(tj_committed_write(dir, &c), 0, "committed state written");
	tap_eq(tj_committed_read(dir, &cb), 0, "and read");
	tap_ok(cb.layout == PCITOPO_LAYOUT_COMMON && cb.generation == 7 &&
	       !strcmp(cb.last_error, "BMC job 3 failed (error 2)"),
	       "layout, switch count and last error survive");

	tap_eq(tj_atomic_write("/nonexistent/dir", "x", "y", 1), -ENOENT,
	       "a missing state dir is an error, not a crash");

	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return tap_done();
}
