// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the memory fitted, from SMBIOS type 17 (Memory Device)
 * structures as Linux exposes them, one file per structure:
 * SYSFS/firmware/dmi/entries/17-N/raw (readable by root only). The parser
 * takes one structure's bytes; ptm_smbios_read() reads every 17-* entry of
 * a directory the caller names and sums them up.
 *
 * Offsets (DMTF DSP0134 3.x, 7.18): 0x00 type, 0x01 length of the formatted
 * area, 0x0C Size (WORD; 0 no device, 0xFFFF unknown, bit 15 set: KB, 0x7FFF:
 * see Extended Size), 0x10 Device Locator (string number), 0x12 Memory Type
 * (0x1A DDR4, 0x22 DDR5, 0x18 DDR3, 0x23 LPDDR5), 0x15 Speed (WORD, MT/s,
 * 2.3+; 0xFFFF: Extended Speed at 0x54), 0x1C Extended Size (DWORD, MB,
 * 2.7+), 0x20 Configured Memory Speed (WORD, MT/s, 2.7+; 0xFFFF: Extended
 * Configured Memory Speed at 0x58). Strings follow the formatted area, each
 * NUL-terminated, the set ending in a second NUL.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ptm.h"
#include "rfile.h"

static unsigned int word(const u8 *b, size_t off)
{
	return (unsigned int)b[off] | (unsigned int)b[off + 1] << 8;
}

static u32 dword(const u8 *b, size_t off)
{
	return (u32)b[off] | (u32)b[off + 1] << 8 | (u32)b[off + 2] << 16 |
	       (u32)b[off + 3] << 24;
}

/* String number n (1-based) of the structure, "" if absent. */
static void string_at(const u8 *raw, size_t len, size_t flen, unsigned int n,
		      char *out, size_t size)
{
	size_t i = flen, start;
	unsigned int k = 1;

	out[0] = '\0';
	if (!n)
		return;
	while (i < len && raw[i]) {
		start = i;
		while (i < len && raw[i])
			i++;
		if (k++ == n) {
			size_t l = i - start < size ? i - start : size - 1;

			memcpy(out, raw + start, l);
			out[l] = '\0';
			return;
		}
		i++;
	}
}

static const char *type_name(u8 t)
{
	switch (t) {
	case 0x12: return "DDR";
	case 0x13: return "DDR2";
	case 0x18: return "DDR3";
	case 0x1a: return "DDR4";
	case 0x1e: return "LPDDR4";
	case 0x22: return "DDR5";
	case 0x23: return "LPDDR5";
	default: return NULL;
	}
}

int ptm_smbios17_parse(const u8 *raw, size_t len, struct ptm_dimm *d)
{
	size_t flen;
	unsigned int size, speed;

	memset(d, 0, sizeof(*d));
	if (len < 0x15 || raw[0] != 17)
		return -EINVAL;
	flen = raw[1];
	if (flen < 0x15 || flen > len)
		return -EINVAL;
	size = word(raw, 0x0c);
	if (size == 0x7fff && flen >= 0x20)
		d->size_mb = dword(raw, 0x1c) & 0x7fffffff;
	else if (size == 0xffff)
		d->size_mb = 0;
	else if (size & 0x8000)
		d->size_mb = (size & 0x7fff) / 1024;
	else
		d->size_mb = size;
	d->populated = size != 0;
	d->type = type_name(raw[0x12]);
	if (flen >= 0x17) {
		speed = word(raw, 0x15);
		if (speed == 0xffff && flen >= 0x58)
			speed = dword(raw, 0x54);
		d->rated_mts = speed == 0xffff ? 0 : speed;
	}
	if (flen >= 0x22) {
		speed = word(raw, 0x20);
		if (speed == 0xffff && flen >= 0x5c)
			speed = dword(raw, 0x58);
		d->mts = speed == 0xffff ? 0 : speed;
	}
	string_at(raw, len, flen, raw[0x10], d->locator, sizeof(d->locator));
	return 0;
}

static unsigned int lower(unsigned int cur, unsigned int x)
{
	return x && (!cur || x < cur) ? x : cur;
}

int ptm_smbios_read(const char *dir, struct ptm_meminfo *m)
{
	char path[4096];
	struct ptm_dimm dm;
	struct dirent *de;
	unsigned int rated = 0, conf = 0;
	int r = 0, denied = 0;
	u8 raw[4096 + 1];	/* + pt_file_read()'s NUL */
	size_t n;
	DIR *d;

	memset(m, 0, sizeof(*m));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "17-", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/raw", dir, de->d_name);
		/* rfile.h: a FIFO in a saved tree would block; skipped */
		r = pt_file_read(path, raw, sizeof(raw), &n);
		if (r == -EACCES || r == -EPERM)
			denied = r;
		if (r)
			continue;
		if (ptm_smbios17_parse(raw, n, &dm))
			continue;
		m->devices++;
		if (!dm.populated)
			continue;
		m->populated++;
		m->total_mb += dm.size_mb;
		rated = lower(rated, dm.rated_mts);
		conf = lower(conf, dm.mts);
		if (!m->type)
			m->type = dm.type;
	}
	closedir(d);
	r = 0;
	if (!m->devices)
		r = denied ? denied : -ENOENT;
	m->mts = conf ? conf : rated;
	m->rated_mts = rated;
	return r;
}
