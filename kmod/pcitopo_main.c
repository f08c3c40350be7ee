// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: PCIe switch ports, links and GPU P2P paths of a GPU server.
 *
 * Load order: extra IDs, the model (generation 1), generic netlink, sysfs,
 * then the bus notifier. Netlink and sysfs each subscribe to the model once
 * they exist (sysfs's subscription fills devices/ from generation 1), and
 * unsubscribe before they go: the model never calls into a part that is not
 * there. Unload undoes it in reverse: the notifier and its pending work go
 * first, so nothing rebuilds behind the teardown.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/genetlink.h>

#include "pcitopo_internal.h"
#include "pcitopo_netlink.h"
#include "pcitopo_sysfs.h"

static char *extra_ids;
module_param(extra_ids, charp, 0444);
MODULE_PARM_DESC(extra_ids,
		 "Extra endpoint IDs at load: \"vvvv:dddd[:gpu|nic|nvme],...\" (4 hex digits each, kind defaults to gpu)");

static int __init pcitopo_init(void)
{
	int ret;

	ret = pcitopo_ids_init(extra_ids);
	if (ret)
		return ret;
	ret = pcitopo_model_init();
	if (ret) {
		pr_err("cannot build the model (%d)\n", ret);
		return ret;
	}
	ret = pcitopo_nl_init();
	if (ret) {
		pr_err("cannot register the generic netlink family (%d)\n",
		       ret);
		goto err_model;
	}
	pcitopo_model_subscribe(&pcitopo_nl_subscriber);
	ret = pcitopo_sysfs_init();
	if (ret) {
		pr_err("cannot create /sys/kernel/pcitopo (%d)\n", ret);
		goto err_nl;
	}
	pcitopo_model_subscribe(&pcitopo_sysfs_subscriber);
	ret = pcitopo_model_start();
	if (ret) {
		pr_err("cannot register the PCI bus notifier (%d)\n", ret);
		goto err_sysfs;
	}
	return 0;

err_sysfs:
	pcitopo_model_unsubscribe(&pcitopo_sysfs_subscriber);
	pcitopo_sysfs_exit();
err_nl:
	pcitopo_model_unsubscribe(&pcitopo_nl_subscriber);
	pcitopo_nl_exit();
err_model:
	pcitopo_model_exit();
	return ret;
}

static void __exit pcitopo_exit(void)
{
	pcitopo_model_stop();
	pcitopo_model_unsubscribe(&pcitopo_sysfs_subscriber);
	pcitopo_sysfs_exit();
	pcitopo_model_unsubscribe(&pcitopo_nl_subscriber);
	pcitopo_nl_exit();
	pcitopo_model_exit();
}

module_init(pcitopo_init);
module_exit(pcitopo_exit);

MODULE_DESCRIPTION("PCIe switch ports, links and GPU P2P paths");
MODULE_AUTHOR("pcitopo developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PCITOPO_VERSION);
/* the first request for the family loads the module, as for wireguard */
MODULE_ALIAS_GENL_FAMILY(PCITOPO_GENL_NAME);
