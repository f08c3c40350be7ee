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

/* "gpu", "nic" or "nvme" (the core's names), len bytes of s. */
int pcitopo_kind_parse(const char *s, size_t len, u8 *kind)
{
	u8 k;

	for (k = PCITOPO_KIND_GPU; k <= PCITOPO_KIND_NVME; k++) {
		const char *name = ptc_kind_name(k);

		if (strlen(name) == len && !strncmp(s, name, len)) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

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

static int pcitopo_hex16(const char *s, size_t len, u16 *out)
{
	char buf[5];

	if (!len || len > 4)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return kstrtou16(buf, 16, out);
}

/* One "vvvv:dddd[:kind]" item of the extra_ids parameter. */
static int pcitopo_ids_parse_one(const char *s, size_t len)
{
	const char *c1, *c2, *end = s + len;
	u16 vendor, device;
	u8 kind = PCITOPO_KIND_GPU;
	int ret;

	c1 = memchr(s, ':', len);
	if (!c1)
		return -EINVAL;
	c2 = memchr(c1 + 1, ':', end - c1 - 1);
	if (pcitopo_hex16(s, c1 - s, &vendor) ||
	    pcitopo_hex16(c1 + 1, (c2 ? c2 : end) - c1 - 1, &device))
		return -EINVAL;
	if (c2 && pcitopo_kind_parse(c2 + 1, end - c2 - 1, &kind))
		return -EINVAL;
	ret = pcitopo_ids_add(vendor, device, kind);
	if (ret == -EEXIST)
		ret = 0;	/* a repeated ID is harmless */
	return ret;
}

/* Parse the extra_ids module parameter: "vvvv:dddd[:kind],...". */
int pcitopo_ids_init(const char *param)
{
	const char *s = param, *comma;
	size_t len;
	int ret;

	if (!s)
		return 0;
	while (*s) {
		comma = strchrnul(s, ',');
		len = comma - s;
		if (len) {
			ret = pcitopo_ids_parse_one(s, len);
			if (ret) {
				pr_err("extra_ids: bad item \"%.*s\" (want vvvv:dddd[:gpu|nic|nvme], at most %d)\n",
				       (int)len, s, PCITOPO_MAX_EXTRA_IDS);
				return -EINVAL;
			}
		}
		s = *comma ? comma + 1 : comma;
	}
	return 0;
}
