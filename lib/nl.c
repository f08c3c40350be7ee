// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the generic netlink transport (libnl-3, libnl-genl-3).
 *
 * One request at a time per handle: send, then read until the ACK (do) or
 * NLMSG_DONE (dump), collecting replies through a parse callback. Kernel
 * errors keep their errno; the extended ACK message (NETLINK_EXT_ACK) is
 * copied into the handle for pt_nl_last_error().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>

#include "attr.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define PT_EVENT_QUEUE	64

struct pt_nl {
	struct nl_sock *sk;
	int family;
	unsigned int version;
	char err[256];
	/* monitor only: events of the last datagram not handed out yet */
	struct pt_event *queue;
	size_t qhead, qlen;
	int qerr;
};

typedef int (*pt_parse_fn)(struct nlmsghdr *nlh, void *arg);

struct req {
	struct pt_nl *h;
	pt_parse_fn fn;
	void *arg;
	bool done;
	bool intr;
	int error;	/* the kernel's, negative */
	int parse_err;
};

static int nle2errno(int e)
{
	switch (e < 0 ? -e : e) {
	case NLE_SUCCESS:	return 0;
	case NLE_INTR:
	case NLE_DUMP_INTR:	return -EINTR;
	case NLE_BAD_SOCK:	return -EBADF;
	case NLE_AGAIN:		return -EAGAIN;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_EXIST:		return -EEXIST;
	case NLE_INVAL:		return -EINVAL;
	case NLE_RANGE:		return -ERANGE;
	case NLE_MSGSIZE:	return -EMSGSIZE;
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:	return -ENOENT;
	case NLE_NOATTR:
	case NLE_MISSING_ATTR:
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_PARSE_ERR:
	case NLE_ATTRSIZE:	return -EBADMSG;
	case NLE_MSG_OVERFLOW:	return -EOVERFLOW;
	case NLE_BUSY:		return -EBUSY;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_NOACCESS:	return -EACCES;
	case NLE_PERM:		return -EPERM;
	case NLE_NODEV:		return -ENODEV;
	default:		return -EIO;
	}
}

/* Copy NLMSGERR_ATTR_MSG out of the TLVs that follow an error or DONE. */
static void take_extack(struct pt_nl *h, const struct nlmsghdr *nlh,
			const void *tlvs, size_t off)
{
	static struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len = nlh->nlmsg_len - NLMSG_HDRLEN;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((const char *)tlvs + off),
		      (int)(len - off), pol))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(h->err, tb[NLMSGERR_ATTR_MSG], sizeof(h->err));
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;
	int r;

	if (rq->fn && !rq->parse_err) {
		r = rq->fn(nlmsg_hdr(msg), rq->arg);
		if (r)
			rq->parse_err = r;
	}
	return NL_OK;
}

/* The request is answered: stop reading. */
static int req_done(struct req *rq)
{
	rq->done = true;
	return NL_STOP;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req *rq = arg;
	int e;

	/* a dump that failed half way ends with DONE carrying the errno */
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		memcpy(&e, nlmsg_data(nlh), sizeof(e));
		if (e < 0) {
			rq->error = e;
			take_extack(rq->h, nlh, nlmsg_data(nlh), sizeof(int));
		}
	}
	return req_done(rq);
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	return req_done(arg);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct req *rq = arg;
	size_t off = sizeof(*e);

	(void)nla;
	rq->error = e->error < 0 ? e->error : -EIO;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len >= NLMSG_HDRLEN ?
		       e->msg.nlmsg_len - NLMSG_HDRLEN : 0;
	take_extack(rq->h, nlh, e, off);
	return req_done(rq);
}

static int on_intr(struct nl_msg *msg, void *arg)
{
	struct req *rq = arg;

	(void)msg;
	rq->intr = true;
	return NL_OK;	/* keep reading to NLMSG_DONE, then retry */
}

/* Send msg (consumed) and read every reply. *intr: NLM_F_DUMP_INTR seen. */
static int transact(struct pt_nl *h, struct nl_msg *msg, pt_parse_fn fn,
		    void *arg, bool *intr)
{
	struct req rq = { .h = h, .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int r;

	h->err[0] = '\0';
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &rq);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &rq);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &rq);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_intr, &rq);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &rq);

	r = nl_send_auto(h->sk, msg);
	nlmsg_free(msg);
	if (r < 0) {
		r = nle2errno(r);
		goto out;
	}
	r = 0;
	while (!rq.done) {
		r = nl_recvmsgs(h->sk, cb);
		if (rq.error)
			break;
		if (r < 0) {
			r = nle2errno(r);
			goto out;
		}
	}
	r = rq.error ? rq.error : rq.parse_err;
	if (intr)
		*intr = rq.intr;
out:
	nl_cb_put(cb);
	return r;
}

static struct nl_msg *new_req(struct pt_nl *h, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, h->family, 0, flags,
			 cmd, PCITOPO_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int put_addr(struct nl_msg *msg, int attr, const char *addr)
{
	if (!addr || !*addr || strlen(addr) >= PCITOPO_ADDR_LEN)
		return -EINVAL;
	return nla_put_string(msg, attr, addr) ? -EMSGSIZE : 0;
}

static int open_sock(struct pt_nl *h)
{
	int one = 1, fd, r;

	h->sk = nl_socket_alloc();
	if (!h->sk)
		return -ENOMEM;
	r = genl_connect(h->sk);
	if (r)
		return nle2errno(r);
	nl_socket_enable_msg_peek(h->sk);
	fd = nl_socket_get_fd(h->sk);
	/* best effort: old kernels send no extack and echo the request */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

/* The controller's answer about one family: its id and version. */
static int parse_family_cb(struct nlmsghdr *nlh, void *arg)
{
	static struct nla_policy pol[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID]	= { .type = NLA_U16 },
		[CTRL_ATTR_VERSION]	= { .type = NLA_U32 },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct pt_nl *h = arg;

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, pol) ||
	    !tb[CTRL_ATTR_FAMILY_ID] || !tb[CTRL_ATTR_VERSION])
		return -EPROTO;
	h->family = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	h->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	return 0;
}

/*
 * Ask the controller for this one family (CTRL_CMD_GETFAMILY by name), not
 * for all of them: libnl's genl_ctrl_alloc_cache() dumps and parses every
 * family of the kernel, a third of a topoctl run in the TCG guest.
 * -ENOENT: no such family (the module is not loaded).
 */
static int resolve(struct pt_nl *h, const char *name, unsigned int min_version)
{
	struct nl_msg *msg;
	int r;

	/* no family has a longer name (the kernel would say EINVAL) */
	if (strlen(name) >= GENL_NAMSIZ)
		return -ENOENT;
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			 CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	h->family = -1;
	r = transact(h, msg, parse_family_cb, h, NULL);
	if (r)
		return r;
	if (h->family < 0)
		return -EPROTO;
	r = h->version < min_version ? -EPROTO : 0;
	if (r)
		snprintf(h->err, sizeof(h->err),
			 "family %s version %u, need %u or later", name,
			 h->version, min_version);
	return r;
}

int pt_nl_open_family(const char *name, unsigned int min_version,
		      struct pt_nl **out)
{
	struct pt_nl *h;
	int r;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = open_sock(h);
	if (!r)
		r = resolve(h, name, min_version);
	if (r) {
		pt_nl_close(h);
		return r;
	}
	*out = h;
	return 0;
}

int pt_nl_open(struct pt_nl **out)
{
	return pt_nl_open_family(PCITOPO_GENL_NAME, PCITOPO_GENL_VERSION, out);
}

void pt_nl_close(struct pt_nl *h)
{
	if (!h)
		return;
	if (h->sk)
		nl_socket_free(h->sk);
	free(h->queue);
	free(h);
}

const char *pt_nl_last_error(const struct pt_nl *h)
{
	return h && h->err[0] ? h->err : NULL;
}

unsigned int pt_nl_version(const struct pt_nl *h)
{
	return h->version;
}

/* --- reads ------------------------------------------------------------ */

static int parse_summary_cb(struct nlmsghdr *nlh, void *arg)
{
	return pt_parse_summary(nlh, arg);
}

static int parse_device_cb(struct nlmsghdr *nlh, void *arg)
{
	return pt_parse_device(nlh, arg);
}

static int parse_path_cb(struct nlmsghdr *nlh, void *arg)
{
	return pt_parse_path(nlh, arg);
}

/* A do request whose single reply is parsed by fn into obj. */
static int do_get(struct pt_nl *h, struct nl_msg *msg, pt_parse_fn fn,
		  void *obj, bool *seen)
{
	return transact(h, msg, fn, obj, seen);
}

struct once {
	pt_parse_fn fn;
	void *obj;
	bool seen;
};

static int once_cb(struct nlmsghdr *nlh, void *arg)
{
	struct once *o = arg;

	if (o->seen)
		return 0;	/* one reply expected; ignore extras */
	o->seen = true;
	return o->fn(nlh, o->obj);
}

static int get_one(struct pt_nl *h, struct nl_msg *msg, pt_parse_fn fn,
		   void *obj)
{
	struct once o = { .fn = fn, .obj = obj };
	int r = do_get(h, msg, once_cb, &o, NULL);

	if (!r && !o.seen)
		r = -EBADMSG;	/* acked without a reply */
	return r;
}

int pt_nl_get_summary(struct pt_nl *h, struct pt_summary *s)
{
	struct nl_msg *msg = new_req(h, PCITOPO_CMD_GET_SUMMARY, 0);

	if (!msg)
		return -ENOMEM;
	return get_one(h, msg, parse_summary_cb, s);
}

int pt_nl_get_device(struct pt_nl *h, const char *addr, struct pt_device *d)
{
	struct nl_msg *msg = new_req(h, PCITOPO_CMD_GET_DEVICE, 0);
	int r;

	if (!msg)
		return -ENOMEM;
	r = put_addr(msg, PCITOPO_A_DEV_ADDR, addr);
	if (r) {
		nlmsg_free(msg);
		return r;
	}
	return get_one(h, msg, parse_device_cb, d);
}

int pt_nl_get_path(struct pt_nl *h, const char *a, const char *b,
		   struct pt_path *p)
{
	struct nl_msg *msg = new_req(h, PCITOPO_CMD_GET_PATH, 0);
	int r;

	if (!msg)
		return -ENOMEM;
	r = put_addr(msg, PCITOPO_A_PATH_A, a);
	if (!r)
		r = put_addr(msg, PCITOPO_A_PATH_B, b);
	if (r) {
		nlmsg_free(msg);
		return r;
	}
	return get_one(h, msg, parse_path_cb, p);
}

/* --- dumps ------------------------------------------------------------ */

struct collect {
	struct pt_topology tmp;
	uint64_t gen;
	bool mixed;
};

static int note_gen(struct collect *c, uint64_t gen)
{
	if (!c->gen)
		c->gen = gen;
	else if (gen != c->gen)
		c->mixed = true;
	return 0;
}

static int collect_device(struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;
	struct pt_device d;
	int r = pt_parse_device(nlh, &d);

	if (r)
		return r;
	note_gen(c, d.generation);
	return pt_topology_add_device(&c->tmp, &d);
}

static int collect_path(struct nlmsghdr *nlh, void *arg)
{
	struct collect *c = arg;
	struct pt_path p;
	int r = pt_parse_path(nlh, &p);

	if (r)
		return r;
	note_gen(c, p.generation);
	return pt_topology_add_path(&c->tmp, &p);
}

/* One consistent dump into *t (appended); *gen: its generation, 0 if empty. */
static int dump_into(struct pt_nl *h, uint8_t cmd, const char *from,
		     struct pt_topology *t, uint64_t *gen)
{
	pt_parse_fn fn = cmd == PCITOPO_CMD_GET_DEVICE ? collect_device :
							 collect_path;
	int tries, r;
	size_t i;

	for (tries = 0; tries < PT_NL_RETRIES; tries++) {
		struct collect c = { 0 };
		struct nl_msg *msg = new_req(h, cmd, NLM_F_DUMP);
		bool intr = false;

		if (!msg)
			return -ENOMEM;
		if (from) {
			r = put_addr(msg, PCITOPO_A_PATH_A, from);
			if (r) {
				nlmsg_free(msg);
				return r;
			}
		}
		r = transact(h, msg, fn, &c, &intr);
		if (r) {
			pt_topology_free(&c.tmp);
			return r;
		}
		if (intr || c.mixed) {
			pt_topology_free(&c.tmp);
			continue;
		}
		for (i = 0; !r && i < c.tmp.n_devices; i++)
			r = pt_topology_add_device(t, &c.tmp.devices[i]);
		for (i = 0; !r && i < c.tmp.n_paths; i++)
			r = pt_topology_add_path(t, &c.tmp.paths[i]);
		pt_topology_free(&c.tmp);
		if (r)
			return r;
		*gen = c.gen;
		return 0;
	}
	snprintf(h->err, sizeof(h->err),
		 "topology kept changing during %u dumps", PT_NL_RETRIES);
	return -EAGAIN;
}

/* dump_into(), then t takes the dump's generation unless it was empty. */
static int dump_gen(struct pt_nl *h, uint8_t cmd, const char *from,
		    struct pt_topology *t)
{
	uint64_t gen = 0;
	int r = dump_into(h, cmd, from, t, &gen);

	if (!r && gen)
		t->generation = gen;
	return r;
}

int pt_nl_dump_devices(struct pt_nl *h, struct pt_topology *t)
{
	return dump_gen(h, PCITOPO_CMD_GET_DEVICE, NULL, t);
}

int pt_nl_dump_paths(struct pt_nl *h, const char *from, struct pt_topology *t)
{
	return dump_gen(h, PCITOPO_CMD_GET_PATH, from, t);
}

/* The summary, the devices and (paths) the paths at one generation. */
static int load(struct pt_nl *h, struct pt_topology *t, bool paths)
{
	struct pt_summary before, after;
	uint64_t gdev, gpath;
	int tries, r;

	memset(t, 0, sizeof(*t));
	for (tries = 0; tries < PT_NL_RETRIES; tries++) {
		pt_topology_free(t);
		gdev = gpath = 0;
		r = pt_nl_get_summary(h, &before);
		if (!r)
			r = dump_into(h, PCITOPO_CMD_GET_DEVICE, NULL, t, &gdev);
		if (!r && paths)
			r = dump_into(h, PCITOPO_CMD_GET_PATH, NULL, t, &gpath);
		if (!r)
			r = pt_nl_get_summary(h, &after);
		if (r)
			goto fail;
		if (before.generation != after.generation ||
		    (gdev && gdev != after.generation) ||
		    (gpath && gpath != after.generation))
			continue;
		t->summary = after;
		t->generation = after.generation;
		pt_topology_sort(t);
		return 0;
	}
	snprintf(h->err, sizeof(h->err),
		 "topology kept changing during %u snapshots", PT_NL_RETRIES);
	r = -EAGAIN;
fail:
	pt_topology_free(t);
	return r;
}

int pt_nl_load_topology(struct pt_nl *h, struct pt_topology *t)
{
	return load(h, t, true);
}

int pt_nl_load_devices(struct pt_nl *h, struct pt_topology *t)
{
	return load(h, t, false);
}

/* --- admin ------------------------------------------------------------ */

static int do_simple(struct pt_nl *h, struct nl_msg *msg)
{
	return transact(h, msg, NULL, NULL, NULL);
}

static int do_addr(struct pt_nl *h, uint8_t cmd, const char *addr, bool opt)
{
	struct nl_msg *msg = new_req(h, cmd, 0);
	int r = 0;

	if (!msg)
		return -ENOMEM;
	if (addr || !opt)
		r = put_addr(msg, PCITOPO_A_DEV_ADDR, addr);
	if (r) {
		nlmsg_free(msg);
		return r;
	}
	return do_simple(h, msg);
}

int pt_nl_detach(struct pt_nl *h, const char *addr)
{
	return do_addr(h, PCITOPO_CMD_DETACH, addr, false);
}

int pt_nl_rescan(struct pt_nl *h, const char *addr)
{
	return do_addr(h, PCITOPO_CMD_RESCAN, addr, true);
}

int pt_nl_refresh(struct pt_nl *h, struct pt_summary *s)
{
	struct nl_msg *msg = new_req(h, PCITOPO_CMD_REFRESH, 0);
	struct pt_summary tmp;
	struct once o = { .fn = parse_summary_cb, .obj = s ? s : &tmp };

	/* the summary stays zeroed (generation 0) if the kernel only acks */
	memset(o.obj, 0, sizeof(struct pt_summary));
	if (!msg)
		return -ENOMEM;
	return transact(h, msg, once_cb, &o, NULL);
}

static struct nl_msg *id_req(struct pt_nl *h, uint8_t cmd, uint16_t vendor,
			     uint16_t device)
{
	struct nl_msg *msg = new_req(h, cmd, 0);

	if (!msg)
		return NULL;
	if (nla_put_u16(msg, PCITOPO_A_ID_VENDOR, vendor) ||
	    nla_put_u16(msg, PCITOPO_A_ID_DEVICE, device)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int pt_nl_add_id(struct pt_nl *h, uint16_t vendor, uint16_t device,
		 uint8_t kind)
{
	struct nl_msg *msg = id_req(h, PCITOPO_CMD_ADD_ID, vendor, device);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u8(msg, PCITOPO_A_ID_KIND, kind)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return do_simple(h, msg);
}

int pt_nl_del_id(struct pt_nl *h, uint16_t vendor, uint16_t device)
{
	struct nl_msg *msg = id_req(h, PCITOPO_CMD_DEL_ID, vendor, device);

	if (!msg)
		return -ENOMEM;
	return do_simple(h, msg);
}

struct idlist {
	struct pt_id *ids;
	size_t n;
};

static int collect_id(struct nlmsghdr *nlh, void *arg)
{
	struct idlist *l = arg;
	struct pt_id id, *p;
	int r = pt_parse_id(nlh, &id);

	if (r)
		return r;
	p = realloc(l->ids, (l->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->ids = p;
	l->ids[l->n++] = id;
	return 0;
}

int pt_nl_dump_ids(struct pt_nl *h, struct pt_id **ids)
{
	struct nl_msg *msg = new_req(h, PCITOPO_CMD_GET_ID, NLM_F_DUMP);
	struct idlist l = { 0 };
	int r;

	*ids = NULL;
	if (!msg)
		return -ENOMEM;
	r = transact(h, msg, collect_id, &l, NULL);
	if (r) {
		free(l.ids);
		return r;
	}
	*ids = l.ids;
	return (int)l.n;
}

/* --- events ----------------------------------------------------------- */

int pt_nl_monitor_open(struct pt_nl **out)
{
	struct pt_nl *h;
	int grp, r;

	r = pt_nl_open(&h);
	if (r)
		return r;
	*out = NULL;
	h->queue = calloc(PT_EVENT_QUEUE, sizeof(*h->queue));
	if (!h->queue) {
		r = -ENOMEM;
		goto fail;
	}
	grp = genl_ctrl_resolve_grp(h->sk, PCITOPO_GENL_NAME,
				    PCITOPO_MCGRP_EVENTS);
	if (grp < 0) {
		r = -EPROTO;
		snprintf(h->err, sizeof(h->err),
			 "family %s has no multicast group \"%s\"",
			 PCITOPO_GENL_NAME, PCITOPO_MCGRP_EVENTS);
		goto fail;
	}
	nl_socket_disable_seq_check(h->sk);
	r = nl_socket_add_membership(h->sk, grp);
	if (!r)
		r = nl_socket_set_nonblocking(h->sk);
	if (r) {
		r = nle2errno(r);
		goto fail;
	}
	*out = h;
	return 0;
fail:
	pt_nl_close(h);
	return r;
}

int pt_nl_monitor_fd(const struct pt_nl *h)
{
	return nl_socket_get_fd(h->sk);
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct pt_nl *h = arg;
	struct pt_event ev;
	int r;

	r = pt_parse_event(nlmsg_hdr(msg), &ev);
	if (r == -EOPNOTSUPP)
		return NL_OK;	/* not an event: ignore */
	if (r) {
		h->qerr = r;
		return NL_OK;
	}
	if (h->qlen < PT_EVENT_QUEUE)
		h->queue[h->qlen++] = ev;
	else
		h->qerr = -ENOBUFS;
	return NL_OK;
}

/* Notifications carry sequence number 0: no sequence check on events. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int pt_nl_monitor_read(struct pt_nl *h, struct pt_event *ev)
{
	struct nl_cb *cb;
	int r;

	if (!h->queue)
		return -EINVAL;
	if (h->qhead < h->qlen) {
		*ev = h->queue[h->qhead++];
		return 0;
	}
	if (h->qerr) {
		r = h->qerr;
		h->qerr = 0;
		return r;
	}
	h->qhead = h->qlen = 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, h);
	/* a fresh cb does not inherit nl_socket_disable_seq_check(): without
	 * this, the first event fails the check (NLE_SEQ_MISMATCH, -EIO) */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	errno = 0;
	r = nl_recvmsgs(h->sk, cb);
	nl_cb_put(cb);
	if (r < 0) {
		/* libnl folds ENOBUFS (events dropped) into NLE_NOMEM */
		if (r == -NLE_NOMEM && errno == ENOBUFS)
			return -ENOBUFS;
		return nle2errno(r);
	}
	if (h->qhead < h->qlen) {
		*ev = h->queue[h->qhead++];
		return 0;
	}
	if (h->qerr) {
		r = h->qerr;
		h->qerr = 0;
		return r;
	}
	return -EAGAIN;
}
