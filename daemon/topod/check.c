// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: `topod --check`, for an operator who has just written topod.conf,
 * a platform file for a new server model or the BMC's credentials: read
 * each as topod would at start and say what is wrong, naming file and
 * line, before the service is (re)started. Nothing is written: no bus
 * name, no module, no state directory; the BMC is contacted only where
 * its backend can say whether it has what the platform names (Redfish's
 * AttributeRegistry; bmc_check_remote()), never changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "hostside.h"
#include "nfd.h"
#include "topod.h"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

int check_dmi(const struct pt_platform *p, char *err, size_t len)
{
	char vendor[256], model[256];

	if (read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)) ||
	    read_line("/sys/class/dmi/id/product_name", model, sizeof(model)))
		return 1;
	if (strcmp(vendor, p->vendor) || strcmp(model, p->model)) {
		snprintf(err, len, "platform %s is for \"%s\" \"%s\", this is "
			 "\"%s\" \"%s\" (check_dmi = false to override)",
			 p->name, p->vendor, p->model, vendor, model);
		return -ENODEV;
	}
	return 0;
}

static unsigned int problems;

static void bad(const char *what, const char *why)
{
	fprintf(stderr, "topod --check: %s: %s\n", what, why);
	problems++;
}

static void print_platform(const char *path, const struct pt_platform *p)
{
	const char *sep = " ";

	printf("platform: %s: %s (\"%s\" \"%s\"), method %s, apply %s\n", path,
	       p->name, p->vendor, p->model, pt_platform_method_name(p->method),
	       pt_platform_apply_name(p->apply));
	printf("layouts: ");
	u8 l;

	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		if (!p->layouts[l].present)
			continue;
		printf("%s%s (%u GPUs)", sep,
		       ptc_layout_name(l),
		       p->layouts[l].gpus);
		sep = ", ";
	}
	printf("\nmoving:   %u GPU(s); budgets: BMC job %u ms, reenumerate %u "
	       "ms", p->ngpus, p->bmc_job_ms, p->reenumerate_ms);
	if (p->apply == PT_PLAT_APPLY_POWER_CYCLE)
		printf(", power cycle %u ms", p->power_cycle_ms);
	putchar('\n');
	printf("units:   ");
	for (unsigned int i = 0; i < p->nunits; i++)
		printf(" %s", p->units[i]);
	printf("%s\n", p->nunits ? "" : " none");
}

int topod_check(const char *config)
{
	char err[PT_PLAT_ERRLEN + 64];
	struct pt_platform plat;
	struct tconfig cfg;
	int r;

	problems = 0;
	if (!config_names_platform(config, err, sizeof(err))) {
		/* the shipped topod.conf: not broken, only not filled in */
		bad("config", "no platform named: topod.service skips this node "
		    "until one is (platform = \"/etc/pcitopo/platforms/"
		    "MODEL.conf\"; topod.conf(5))");
		fprintf(stderr, "topod --check: (%s)\n", err);
		return 1;
	}
	if (config_load(config, &cfg, err, sizeof(err))) {
		bad("config", err);
		return 1;	/* nothing else is known without it */
	}
	printf("config:   %s\n", config);
	if (pt_platform_load(cfg.platform, &plat, err, sizeof(err))) {
		bad("platform", err);
	} else if (bmc_check_platform(&cfg.bmc, &plat, err, sizeof(err))) {
		print_platform(cfg.platform, &plat);
		bad("platform", err);
	} else {
		print_platform(cfg.platform, &plat);
		r = cfg.check_dmi ? check_dmi(&plat, err, sizeof(err)) : 2;
		if (r < 0)
			bad("dmi", err);
		else
			printf("dmi:      %s\n", r == 0 ? "this machine is the "
			       "platform's model" : r == 1 ? "none on this "
			       "machine: not compared" : "not compared "
			       "(check_dmi = false)");
	}
	bmc_check(&cfg.bmc, bad);
	if (bmc_check_platform(&cfg.bmc, &plat, err, sizeof(err)) == 0 &&
	    plat.transport)
		bmc_check_remote(&cfg.bmc, &plat, bad);
	printf("state:    %s\n", cfg.state_dir);
	if (!cfg.nfd_dir[0])
		printf("labels:   off (nfd_features_dir = \"\")\n");
	else	/* not a problem: NFD's worker makes it when deployed */
		printf("labels:   %s/%s (NFD)%s\n", cfg.nfd_dir, NFD_FILE,
		       access(cfg.nfd_dir, F_OK) ? "; the directory is missing: "
		       "no labels until it is there" : "");
	printf("hardware: %s\n", hw_what());
	if (problems) {
		fprintf(stderr, "topod --check: %u problem(s)\n", problems);
		return 1;
	}
	printf("topod --check: ok\n");
	return 0;
}

int topod_discover(const char *config, const char *system,
		   const char *attribute)
{
	char err[1024];
	struct bmc_conf *bc;
	config_t cf;
	int r = 1;

	/* the bmc group only: the platform file is what this helps write */
	bc = malloc(sizeof(*bc));
	if (!bc)
		return 1;
	config_init(&cf);
	if (!config_read_file(&cf, config)) {
		if (config_error_type(&cf) == CONFIG_ERR_FILE_IO)
			fprintf(stderr, "topod --discover-redfish: %s: %m\n",
				config);
		else
			fprintf(stderr, "topod --discover-redfish: %s:%d: %s\n",
				config, config_error_line(&cf),
				config_error_text(&cf));
	} else if (bmc_conf_load(&cf, config, bc, err, sizeof(err))) {
		fprintf(stderr, "topod --discover-redfish: %s\n", err);
	} else if (bmc_discover(bc, system, attribute, stdout, err,
				sizeof(err))) {
		fprintf(stderr, "topod --discover-redfish: %s\n", err);
	} else {
		r = 0;
	}
	config_destroy(&cf);
	free(bc);
	return r;
}
