/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/net/dev: node_network_{receive,transmit}_*_total labelled {device}.
 *
 * A line is "<name>:" (right-aligned, and a large byte count follows the ':'
 * with no blank) then 8 receive and 8 transmit counters.  Names are split at
 * the line's last ':' (the counters never hold one), so a name with ':',
 * '.', '-' or '@' survives.  The two header lines have no ':' and are skipped.
 *
 * Device exclusion: Debian's prometheus-node-exporter 1.5 default,
 * --collector.netdev.device-exclude ^lo$ (as it logs at start-up): only the
 * loopback device "lo" is left out.
 *
 * receive_nohandler, which node_exporter reads over netlink, is not in
 * /proc/net/dev and is not rendered.
 */
#include "features/node/node_priv.h"

#include <string.h>

void enav_node_parse_netdev(const char *buf, size_t len, enav_node_netdev_cb cb, void *ctx)
{
	const char *pos = buf, *end = buf + len, *line, *tok;
	size_t ll, tl;

	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *colon = ll ? memrchr(line, ':', ll) : NULL;
		struct enav_node_netdev d;
		bool ok = true;

		if (!colon)
			continue;
		const char *s = line, *e = colon;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		size_t nl = (size_t)(e - s);

		if (nl == 0 || nl >= sizeof(d.name) || memchr(s, '\0', nl))
			continue;
		memset(&d, 0, sizeof(d));
		memcpy(d.name, s, nl);
		d.name[nl] = '\0';

		const char *lp = colon + 1, *le = line + ll;

		for (int i = 0; i < ENAV_NODE_NET_FIELDS && ok; i++)
			ok = enav_node_token(&lp, le, &tok, &tl) &&
			     enav_node_parse_u64(tok, tl, &d.v[i]);
		if (ok)
			cb(ctx, &d);
	}
}

bool enav_node_netdev_excluded(const char *name)
{
	return strcmp(name, "lo") == 0;
}

static void keep_netdev(void *ctx, const struct enav_node_netdev *d)
{
	struct enav_node *n = ctx;

	if (enav_node_netdev_excluded(d->name) || !enav_utf8_valid(d->name))
		return;
	for (uint32_t i = 0; i < n->n_nets; i++)
		if (strcmp(n->nets[i].name, d->name) == 0)
			return;
	if (n->n_nets >= n->max_devices) {
		n->dropped[ENAV_NODE_K_NETDEV]++;
		return;
	}
	n->nets[n->n_nets++] = *d;
}

/* The column order of /proc/net/dev. */
static const struct {
	const char *name, *help;
} net_families[ENAV_NODE_NET_FIELDS] = {
    {"node_network_receive_bytes_total", "Bytes received."},
    {"node_network_receive_packets_total", "Packets received."},
    {"node_network_receive_errs_total", "Receive errors."},
    {"node_network_receive_drop_total", "Received packets dropped."},
    {"node_network_receive_fifo_total", "Receive FIFO overruns."},
    {"node_network_receive_frame_total", "Receive framing errors."},
    {"node_network_receive_compressed_total", "Compressed packets received."},
    {"node_network_receive_multicast_total", "Multicast packets received."},
    {"node_network_transmit_bytes_total", "Bytes transmitted."},
    {"node_network_transmit_packets_total", "Packets transmitted."},
    {"node_network_transmit_errs_total", "Transmit errors."},
    {"node_network_transmit_drop_total", "Transmitted packets dropped."},
    {"node_network_transmit_fifo_total", "Transmit FIFO overruns."},
    {"node_network_transmit_colls_total", "Collisions while transmitting."},
    {"node_network_transmit_carrier_total", "Transmit carrier losses."},
    {"node_network_transmit_compressed_total", "Compressed packets transmitted."},
};

void enav_node_render_netdev(struct enav_node *n, struct enav_promtext *p)
{
	ssize_t len = enav_node_read(n, ENAV_NODE_F_NETDEV);

	n->n_nets = 0;
	if (len < 0)
		return;
	enav_node_parse_netdev(n->buf, (size_t)len, keep_netdev, n);
	n->available[ENAV_NODE_C_NETDEV] = true;
	if (!n->n_nets)
		return;
	for (int f = 0; f < ENAV_NODE_NET_FIELDS; f++) {
		enav_promtext_family(p, net_families[f].name, "counter", net_families[f].help);
		for (uint32_t i = 0; i < n->n_nets; i++) {
			const char *l[] = {"device", n->nets[i].name};

			enav_promtext_sample_u64(p, net_families[f].name, l, 1, n->nets[i].v[f]);
		}
	}
}
