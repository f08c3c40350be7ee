// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: the one definition of "ACS redirect", used by the path
 * classes (ptc_path.c), libpcitopo's model (lib/model.c) and `topoctl doctor`.
 *
 * A port redirects peer-to-peer traffic when it enables, in its ACS Control
 * register, P2P Request Redirect, P2P Completion Redirect or P2P Egress
 * Control, and its ACS Capability register says it implements that bit: the
 * same three bits Linux's pci_bridge_has_acs_redir() looks at and that
 * pci=disable_acs_redir= clears. Control bits the capability does not
 * implement are hardwired to 0 by the spec; a saved or hand-edited config
 * space may still show them, and they must not count.
 *
 * Only downstream-facing ports route P2P between their links: root ports and
 * switch downstream ports. ACS on a multi-function endpoint only governs
 * traffic between its own functions, which never lies on a GPU-GPU or GPU-NIC
 * path, so it does not count either.
 */
#include "ptc.h"

u16 ptc_acs_redirect_bits(u8 role, u16 cap, u16 ctrl)
{
	if (role != PCITOPO_ROLE_ROOT_PORT && role != PCITOPO_ROLE_DOWNSTREAM)
		return 0;
	return ctrl & cap & PTC_ACS_REDIRECT_MASK;
}

bool ptc_acs_redirect(u8 role, u16 cap, u16 ctrl)
{
	return ptc_acs_redirect_bits(role, cap, ctrl) != 0;
}
