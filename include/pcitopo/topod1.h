/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * org.pcitopo.Topod1: the names of topod's D-Bus API, the one copy, included
 * by topod (daemon/topod) and topoctl (cli/set.c, status.c, dryrun.c).
 * Documentation/org.pcitopo.Topod1.xml documents the methods, properties and
 * signals; tests/topod/topod1-names.py (run by tests/topod/t-topod.sh)
 * checks that it and this header agree: names (methods, signals and
 * properties too), the keys of Status and PlanLayout with their
 * signatures, flag bits, errors' errno; and that no .c file of
 * daemon/topod or cli writes one of these names as a literal.
 *
 * Userspace, and it needs no sd-bus header: topoctl loads libsystemd at run
 * time (cli/sdbus-dl.h).
 */
#ifndef PCITOPO_TOPOD1_H
#define PCITOPO_TOPOD1_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define TOPOD_BUS_NAME		"org.pcitopo.Topod"	/* system bus */
#define TOPOD_OBJECT		"/org/pcitopo/Topod"
#define TOPOD_IFACE		"org.pcitopo.Topod1"
/* topod's object manager (InterfacesAdded...) sits above its one object */
#define TOPOD_OBJECT_ROOT	"/org/pcitopo"

/* TOPOD_IFACE's members, as the XML's <method>, <signal> and <property> */
#define TOPOD_METHOD_SET_LAYOUT		"SetLayout"
#define TOPOD_METHOD_PLAN_LAYOUT	"PlanLayout"
#define TOPOD_METHOD_GET_LAYOUT		"GetLayout"
#define TOPOD_METHOD_STATUS		"Status"
#define TOPOD_METHOD_RECHECK		"Recheck"
#define TOPOD_SIGNAL_PHASE		"Phase"
#define TOPOD_SIGNAL_FINISHED		"Finished"
#define TOPOD_SIGNAL_DRIFT		"Drift"
#define TOPOD_PROP_LAYOUT		"Layout"
#define TOPOD_PROP_PENDING_LAYOUT	"PendingLayout"
#define TOPOD_PROP_STATE		"State"
#define TOPOD_PROP_LAST_ERROR		"LastError"
#define TOPOD_PROP_GENERATION		"Generation"
#define TOPOD_PROP_PLATFORM		"Platform"

/*
 * The State property's values (also Status()'s State and PlanLayout()'s),
 * TOPOD_STATES(X) as X(ID, name): topod names its enum tstate after it
 * (TS_<ID>: daemon/topod/topod.h, enums.c), topoctl compares against
 * TOPOD_STATE_<ID>. The XML's comment on State lists the same names.
 *   idle                  nothing in flight
 *   switching             a switch (or its recovery at start) runs
 *   rolling-back          back to the old layout after a failure
 *   awaiting-power-cycle  a layout is pending until the next power cycle
 *   waiting-bmc           a rollback needs the BMC, which does not answer:
 *                         every GPU that can be is back with its driver,
 *                         topod asks the BMC again by itself (backoff) and
 *                         finishes the rollback when it answers; a switch
 *                         meanwhile is refused (Busy)
 *   failed                a rollback or a power-cycled switch failed
 */
#define TOPOD_STATE_IDLE		"idle"
#define TOPOD_STATE_SWITCHING		"switching"
#define TOPOD_STATE_ROLLING_BACK	"rolling-back"
#define TOPOD_STATE_AWAITING_POWER_CYCLE	"awaiting-power-cycle"
#define TOPOD_STATE_WAITING_BMC		"waiting-bmc"
#define TOPOD_STATE_FAILED		"failed"

#define TOPOD_STATES(X)			\
	X(IDLE)				\
	X(SWITCHING)			\
	X(ROLLING_BACK)			\
	X(AWAITING_POWER_CYCLE)		\
	X(WAITING_BMC)			\
	X(FAILED)

/*
 * The keys of Status()'s and PlanLayout()'s a{sv} answers, each as its name
 * and its variant's signature, the two strings sd-bus wants for an {sv}:
 * topod appends sd_bus_message_append(m, "{sv}", TOPOD_STATUS_GPUS, n);
 * topoctl reads with TOPOD_KEY(k) (the name) and TOPOD_SIG(k). The XML's
 * comments on Status and PlanLayout list the same keys with the same
 * signatures (topod1-names.py holds them together).
 */
#define TOPOD_KEY(k)		TOPOD_KEY_(k)
#define TOPOD_KEY_(name, sig)	name
#define TOPOD_SIG(k)		TOPOD_SIG_(k)
#define TOPOD_SIG_(name, sig)	sig

/* Status() */
#define TOPOD_STATUS_LAYOUT		"Layout", "s"
#define TOPOD_STATUS_REASON		"Reason", "s"
#define TOPOD_STATUS_PENDING_LAYOUT	"PendingLayout", "s"
#define TOPOD_STATUS_STATE		"State", "s"
#define TOPOD_STATUS_PHASE		"Phase", "s"
#define TOPOD_STATUS_TARGET		"Target", "s"
#define TOPOD_STATUS_LAST_ERROR		"LastError", "s"
#define TOPOD_STATUS_GENERATION		"Generation", "t"
#define TOPOD_STATUS_COMMITTED_LAYOUT	"CommittedLayout", "s"
#define TOPOD_STATUS_PLATFORM		"Platform", "s"
#define TOPOD_STATUS_METHOD		"Method", "s"
#define TOPOD_STATUS_APPLY		"Apply", "s"
#define TOPOD_STATUS_GPUS		"GPUs", "u"
#define TOPOD_STATUS_MODULE_GENERATION	"ModuleGeneration", "t"
#define TOPOD_STATUS_BMC		"BMC", "s"
#define TOPOD_STATUS_LAYOUTS		"Layouts", "as"

/* PlanLayout() */
#define TOPOD_PLAN_CURRENT_LAYOUT	"CurrentLayout", "s"
#define TOPOD_PLAN_TARGET_LAYOUT	"TargetLayout", "s"
#define TOPOD_PLAN_FLAGS		"Flags", "t"
#define TOPOD_PLAN_CHECKED		"Checked", "b"
#define TOPOD_PLAN_PROCEED		"Proceed", "b"
#define TOPOD_PLAN_ERROR		"Error", "s"
#define TOPOD_PLAN_MESSAGE		"Message", "s"
#define TOPOD_PLAN_AUTHORIZATION	"Authorization", "s"
#define TOPOD_PLAN_STATE		"State", "s"
#define TOPOD_PLAN_PHASE		"Phase", "s"
#define TOPOD_PLAN_NOOP			"NoOp", "b"
#define TOPOD_PLAN_OUTCOME		"Outcome", "s"
#define TOPOD_PLAN_METHOD		"Method", "s"
#define TOPOD_PLAN_APPLY		"Apply", "s"
#define TOPOD_PLAN_POWER_CYCLE_NEEDED	"PowerCycleNeeded", "b"
#define TOPOD_PLAN_POWER_CYCLE_ALLOWED	"PowerCycleAllowed", "b"
#define TOPOD_PLAN_SELECT		"Select", "b"
#define TOPOD_PLAN_BUDGET_MS		"BudgetMs", "t"
#define TOPOD_PLAN_PLATFORM		"Platform", "s"
#define TOPOD_PLAN_BMC			"BMC", "s"
#define TOPOD_PLAN_BMC_REACHABLE	"BMCReachable", "b"
#define TOPOD_PLAN_BMC_ERROR		"BMCError", "s"
#define TOPOD_PLAN_BMC_STATE		"BMCState", "s"
#define TOPOD_PLAN_BMC_JOB		"BMCJob", "i"
#define TOPOD_PLAN_BMC_CURRENT		"BMCCurrent", "s"
#define TOPOD_PLAN_BMC_PENDING		"BMCPending", "s"
#define TOPOD_PLAN_MODULE_LAYOUT	"ModuleLayout", "s"
#define TOPOD_PLAN_GPUS			"GPUs", "u"
#define TOPOD_PLAN_GPUS_EXPECTED	"GPUsExpected", "u"
#define TOPOD_PLAN_MOVING_GPUS		"MovingGPUs", "a(ss)"
#define TOPOD_PLAN_DETACH		"Detach", "b"
#define TOPOD_PLAN_DETACH_PORTS		"DetachPorts", "as"
#define TOPOD_PLAN_HOLDERS		"Holders", "a(suss)"
#define TOPOD_PLAN_HOLDERS_NAMED	"HoldersNamed", "b"
#define TOPOD_PLAN_SYSTEMD		"Systemd", "b"
#define TOPOD_PLAN_UNITS		"Units", "a(sbb)"

/*
 * The bus itself, which both ask whether a name has an owner: topoctl
 * whether topod runs (and follows its owner while a switch runs), topod
 * whether systemd does.
 */
#define TOPOD_DBUS_NAME		"org.freedesktop.DBus"
#define TOPOD_DBUS_OBJECT	"/org/freedesktop/DBus"
#define TOPOD_DBUS_IFACE	"org.freedesktop.DBus"
#define TOPOD_DBUS_NAME_HAS_OWNER	"NameHasOwner"
/* every sd-bus peer answers Ping from its event loop, touching nothing
 * else: topoctl's probe of whether topod still answers (cli/topod-live.c) */
#define TOPOD_PEER_IFACE	"org.freedesktop.DBus.Peer"
#define TOPOD_PEER_PING		"Ping"

/* topod's unit, asked (systemd's D-Bus API, readable by anyone) why topod
 * is not running: topoctl's message. ExecCondition's skip (a node whose
 * topod.conf names no platform) leaves Result "exec-condition"; a wrong
 * configuration makes topod exit TOPOD_EXIT_STATUS_CONFIG. */
#define TOPOD_UNIT_PATH		"/org/freedesktop/systemd1/unit/topod_2eservice"
#define TOPOD_SYSTEMD_NAME	"org.freedesktop.systemd1"
#define TOPOD_UNIT_IFACE	"org.freedesktop.systemd1.Unit"
#define TOPOD_SERVICE_IFACE	"org.freedesktop.systemd1.Service"
#define TOPOD_PROPS_IFACE	"org.freedesktop.DBus.Properties"
#define TOPOD_EXIT_STATUS_CONFIG	78	/* sysexits' EX_CONFIG */
#define TOPOD_DBUS_NAME_OWNER_CHANGED	"NameOwnerChanged"

/*
 * SetLayout and PlanLayout flags. FORCE: switch although a process holds a
 * moving GPU open or GPUs are missing; POWER_CYCLE: allow a power cycle
 * through the BMC (switch-firmware platforms). Other bits: InvalidArgs.
 */
#define TOPOD_F_FORCE		UINT64_C(1)
#define TOPOD_F_POWER_CYCLE	UINT64_C(2)
#define TOPOD_F_ALL		(TOPOD_F_FORCE | TOPOD_F_POWER_CYCLE)

/*
 * Named errors: TOPOD_ERR_<ID> is the D-Bus name, TOPOD_ERRORS(X) the one
 * table of them as X(ID, errno). topod registers its sd_bus_error_map from
 * it and names its enum terr after it (TERR_<ID>: daemon/topod/bus.c,
 * topod.h); topoctl maps a name it receives back with topod_errno_of().
 *   Busy           a switch is in flight
 *   InvalidLayout  not balance, common or cascade
 *   Unsupported    the platform file lacks the layout
 *   DeviceBusy     a process holds a moving GPU open, or a unit would not
 *                  stop
 *   BMC            the BMC does not answer, refuses, or its job failed
 *   Timeout        a phase ran past its budget
 *   Verify         GPUs missing, or not the layout asked for
 * Besides these, topod answers with freedesktop's AccessDenied (polkit said
 * no), InvalidArgs (unknown flag bits), LimitsExceeded (too many dry runs
 * waiting) and Failed (anything else), which libsystemd maps itself.
 */
#define TOPOD_ERR		TOPOD_IFACE ".Error."
#define TOPOD_ERR_BUSY		TOPOD_ERR "Busy"
#define TOPOD_ERR_INVALID_LAYOUT	TOPOD_ERR "InvalidLayout"
#define TOPOD_ERR_UNSUPPORTED	TOPOD_ERR "Unsupported"
#define TOPOD_ERR_DEVICE_BUSY	TOPOD_ERR "DeviceBusy"
#define TOPOD_ERR_BMC		TOPOD_ERR "BMC"
#define TOPOD_ERR_TIMEOUT	TOPOD_ERR "Timeout"
#define TOPOD_ERR_VERIFY	TOPOD_ERR "Verify"

#define TOPOD_ERRORS(X)			\
	X(BUSY, EBUSY)			\
	X(INVALID_LAYOUT, EINVAL)	\
	X(UNSUPPORTED, EOPNOTSUPP)	\
	X(DEVICE_BUSY, ETXTBSY)		\
	X(BMC, EREMOTEIO)		\
	X(TIMEOUT, ETIMEDOUT)		\
	X(VERIFY, EIO)

/*
 * The errno of an org.pcitopo.Topod1.Error.* name; 0 for any other name and
 * for NULL. A client needs it: its libsystemd knows only freedesktop's names
 * and has sd_bus_call_method() return -EIO for each of ours.
 */
static inline int topod_errno_of(const char *name)
{
	static const struct {
		const char *name;
		int errnum;
	} map[] = {
#define TOPOD_ERRNO_OF(id, errnum) { TOPOD_ERR_##id, errnum },
		TOPOD_ERRORS(TOPOD_ERRNO_OF)
#undef TOPOD_ERRNO_OF
	};

	for (size_t i = 0; name && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i].name))
			return map[i].errnum;
	return 0;
}

#endif /* PCITOPO_TOPOD1_H */
