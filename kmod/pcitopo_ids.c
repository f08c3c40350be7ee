// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: extra vendor:device IDs treated as endpoints of a kind, on top of
 * the class-code rules (no emulated device can carry a GPU vendor's ID, and
 * real GPUs of some vendors report an unexpected class).
 *
 * The table is small and fixed (PCITOPO_MAX_EXTRA_IDS); a rebuild copies it
 * once so that the bus walk never takes this lock.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "pcitopo_internal.h"

static DEFINE_MUTEX(pcitopo_ids_lock);
static struct pcitopo_id_table pcitopo_ids;

static int pcitopo_ids_find(u16 vendor, u16 device)
{
	unsigned int i;

	for (i = 0; i < pcitopo_ids.count; i++)
		if (pcitopo_ids.ids[i].vendor == vendor &&
		    pcitopo_ids.ids[i].device == device)
			return i;
	return -ENOENT;
}

int pcitopo_ids_add(u16 vendor, u16 device, u8 kind)
{
	struct pcitopo_id *id;
	int ret = 0;

	if (kind < PCITOPO_KIND_GPU || kind > PCITOPO_KIND_NVME)
		return -EINVAL;

	mutex_lock(&pcitopo_ids_lock);
	if (pcitopo_ids_find(vendor, device) >= 0) {
		ret = -EEXIST;
	} else if (pcitopo_ids.count >= PCITOPO_MAX_EXTRA_IDS) {
		ret = -ENOSPC;
	} else {
		id = &pcitopo_ids.ids[pcitopo_ids.count++];
		id->vendor = vendor;
		id->device = device;
		id->kind = kind;
	}
	mutex_unlock(&pcitopo_ids_lock);
	return ret;
}

int pcitopo_ids_del(u16 vendor, u16 device)
{
	int i;

	mutex_lock(&pcitopo_ids_lock);
	i = pcitopo_ids_find(vendor, device);
	if (i >= 0) {
		pcitopo_ids.count--;
		memmove(&pcitopo_ids.ids[i], &pcitopo_ids.ids[i + 1],
			(pcitopo_ids.count - i) * sizeof(pcitopo_ids.ids[0]));
	}
	mutex_unlock(&pcitopo_ids_lock);
	return i < 0 ? i : 0;
}

void pcitopo_ids_copy(struct pcitopo_id_table *out)
{
	mutex_lock(&pcitopo_ids_lock);
	*out = pcitopo_ids;
	mutex_unlock(&pcitopo_ids_lock);
}

u8 pcitopo_ids_kind(const struct pcitopo_id_table *t, u16 vendor, u16 device)
{
	unsigned int i;

	for (i = 0; i < t->count; i++)
		if (t->ids[i].vendor == vendor && t->ids[i].device == device)
			return t->ids[i].kind;
	return PCITOPO_KIND_NONE;
}

static int pcitopo_ids_add_param(const struct ptc_extra_id *id, void *arg)
{
	int ret = pcitopo_ids_add(id->vendor, id->device, id->kind);

	return ret == -EEXIST ? 0 : ret;	/* a repeated ID is harmless */
}

/*
 * The extra_ids module parameter: a list in the syntax of the extra-ids
 * file, core/ptc_ids.c ("vvvv:dddd[:kind],...").
 */
int pcitopo_ids_init(const char *param)
{
	struct ptc_ids_pos bad;
	int ret;

	if (!param)
		return 0;
	ret = ptc_parse_ids(param, strlen(param), pcitopo_ids_add_param, NULL,
			    &bad);
	if (ret)
		pr_err("extra_ids: bad item \"%.*s\" (want vvvv:dddd[:gpu|nic|nvme], at most %d)\n",
		       (int)bad.len, param + bad.off, PCITOPO_MAX_EXTRA_IDS);
	return ret ? -EINVAL : 0;
}
