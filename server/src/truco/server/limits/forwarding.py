"""Who a call's client is, for the quotas and caps that count client addresses.

Behind a load balancer or ingress every connection comes from the proxy's address, so a per-address quota would
put every player in one bucket. A proxy the operator trusts (``truco serve --trusted-proxy CIDR``) says whom it
forwards in ``x-forwarded-for``: the client is the rightmost address of that list that is not itself a trusted
proxy (the entries left of it were written by the client, who may write anything). A connection from an
untrusted address is its own client, whatever it sends.

Addresses are grouped as the connection caps group them (:func:`~truco.server.doors.connections.client_group`): an
IPv6 client by its /64, which one subscriber usually holds whole.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def client_group(address: str) -> str:
    """Whom a connection counts against: an IPv4 address (also when written as IPv4-mapped IPv6), or the /64
    of an IPv6 address; anything else (a Unix socket) as written."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


FORWARDED_FOR = "x-forwarded-for"

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class TrustedProxies:
    """The networks whose connections are proxies' (empty: none, every connection is its client)."""

    networks: tuple[_Network, ...] = ()

    @classmethod
    def parse(cls, cidrs: Iterable[str]) -> TrustedProxies:
        """:raises ValueError: a network that does not parse (``10.0.0.0/8``, ``fd00::/8``, ``127.0.0.1``)."""
        return cls(tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs))

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in self.networks)

    def client(self, address: str, metadata: Sequence[tuple[str, str | bytes]] | None) -> str:
        """The client group of a call from ``address`` (the connection's) with ``metadata``."""
        if not self.networks or not self.trusts(address):
            return client_group(address)
        forwarded = [value for name, value in metadata or () if name.lower() == FORWARDED_FOR]
        hops = [
            hop.strip()
            for value in forwarded
            for hop in (value.decode("latin-1") if isinstance(value, bytes) else value).split(",")
        ]
        for hop in reversed(hops):
            if not hop:
                continue
            if not self.trusts(hop):
                try:
                    ipaddress.ip_address(hop.split("%", 1)[0])
                except ValueError:
                    break  # not an address: the list is not to be believed past here
                return client_group(hop)
        return client_group(address)


NO_PROXIES = TrustedProxies()

__all__ = ["FORWARDED_FOR", "NO_PROXIES", "TrustedProxies", "client_group"]
