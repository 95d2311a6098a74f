"""The established TCP connections of a local port, as the kernel's socket diagnostics tell them (Linux).

One netlink request (``NETLINK_SOCK_DIAG``, ``SOCK_DIAG_BY_FAMILY``) per address family answers every established
connection in binary, with each one's ``tcp_info``: reading 10,000 connections takes a few milliseconds, where
parsing the text of ``/proc/net/tcp`` took hundreds. The reader blocks on a socket: call it off the event loop
(``asyncio.to_thread``). Where netlink is not allowed the reader falls back to ``/proc/net/tcp{,6}``, without the
silence of each connection.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
TCP_ESTABLISHED = 1
INET_DIAG_INFO = 2
TCPI_LAST_DATA_RECV_OFFSET = 52
"""``tcpi_last_data_recv`` in ``struct tcp_info``: milliseconds since the connection last received data."""

_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port id
_REQUEST = struct.Struct("=BBBxI")  # inet_diag_req_v2 up to its socket id: family, protocol, extensions, states
_SOCKET_ID = struct.Struct("!HH16s16s")  # source port, destination port (network order), source, destination
_SOCKET_ID_TAIL = struct.Struct("=III")  # interface, cookie
_MESSAGE = struct.Struct("=BBBB")  # inet_diag_msg: family, state, timer, retransmits (then the socket id)
_INODE_OFFSET = _MESSAGE.size + _SOCKET_ID.size + _SOCKET_ID_TAIL.size + 16  # expires, rqueue, wqueue, uid
_ATTRIBUTES_OFFSET = _INODE_OFFSET + 4
_ATTRIBUTE = struct.Struct("=HH")  # rtattr: length, type
_HEADER_START = struct.Struct("=IH")  # nlmsghdr's length and type
_PORTS = struct.Struct("!HH")  # the socket id's source and destination ports
_REMOTE_OFFSET = _MESSAGE.size + 4 + 16  # the socket id's destination address, after the ports and the source
_U32 = struct.Struct("=I")


@dataclass(frozen=True, slots=True)
class Connection:
    """An established connection to the local port."""

    peer: str  #: the client as gRPC writes a peer: ``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``
    address: str  #: the client's address (an IPv4-mapped IPv6 address as IPv4)
    inode: int  #: the socket's inode, which finds its descriptor in the process that holds it
    silent_ms: int  #: milliseconds since the client last sent data (0 where unknown)


def peer_string(address: str, port: int) -> str:
    """A client address and port written as gRPC writes a peer."""
    return f"ipv6:[{address}]:{port}" if ":" in address else f"ipv4:{address}:{port}"


def _request(family: int, sequence: int) -> bytes:
    body = _REQUEST.pack(family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 1 << TCP_ESTABLISHED)
    body += _SOCKET_ID.pack(0, 0, bytes(16), bytes(16)) + _SOCKET_ID_TAIL.pack(0, 0, 0)
    return _HEADER.pack(_HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, sequence, 0) + body


def _info_offset(data: memoryview, start: int, end: int) -> int | None:
    """Where a message's ``tcp_info`` starts, found by walking its attributes (relative to ``start``)."""
    offset = start + _ATTRIBUTES_OFFSET
    while offset + _ATTRIBUTE.size <= end:
        length, kind = _ATTRIBUTE.unpack_from(data, offset)
        if length < _ATTRIBUTE.size:
            return None
        if kind == INET_DIAG_INFO and length >= _ATTRIBUTE.size + TCPI_LAST_DATA_RECV_OFFSET + 4:
            return offset + _ATTRIBUTE.size - start
        offset += (length + 3) & ~3
    return None


_MAPPED = b"\x00" * 10 + b"\xff\xff"


def _dump(sock: socket.socket, family: int, port: int, sequence: int) -> Iterator[Connection]:
    """One family's connections to ``port``. Every message of a dump has the same attributes in the same order,
    so where ``tcp_info`` sits is found once and checked on each (a read of 10,000 connections is Python's loop
    over them: this keeps it to a few unpacks each)."""
    sock.send(_request(family, sequence))
    info: int | None = None
    while True:
        data = memoryview(sock.recv(1 << 20))
        offset, length = 0, 0
        while offset + _HEADER.size <= len(data):
            length, kind = _HEADER_START.unpack_from(data, offset)
            if kind == NLMSG_DONE:
                return
            if kind == NLMSG_ERROR:
                raise OSError("socket diagnostics refused the request")
            start = offset + _HEADER.size
            local_port, remote_port = _PORTS.unpack_from(data, start + _MESSAGE.size)
            inode = _U32.unpack_from(data, start + _INODE_OFFSET)[0] if local_port == port else 0
            if inode:  # 0: another port's, or still in the listen queue (nobody's yet)
                raw = bytes(data[start + _REMOTE_OFFSET : start + _REMOTE_OFFSET + 16])
                if family == socket.AF_INET or raw[:12] == _MAPPED:
                    address = socket.inet_ntop(socket.AF_INET, raw[12:] if family != socket.AF_INET else raw[:4])
                else:
                    address = socket.inet_ntop(socket.AF_INET6, raw)
                at = info if info is not None else _info_offset(data, start, offset + length)
                if at is not None and _ATTRIBUTE.unpack_from(data, start + at - _ATTRIBUTE.size)[1] != INET_DIAG_INFO:
                    at = _info_offset(data, start, offset + length)
                info = at
                silent = _U32.unpack_from(data, start + at + TCPI_LAST_DATA_RECV_OFFSET)[0] if at is not None else 0
                yield Connection(peer_string(address, remote_port), address, inode, silent)
            offset += (length + 3) & ~3
        if length == 0:
            return


def netlink_connections(port: int) -> list[Connection]:
    """The established connections to local ``port``, with their silence. :raises OSError: no netlink here."""
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as sock:
        sock.settimeout(5.0)
        found = list(_dump(sock, socket.AF_INET, port, 1))
        found += _dump(sock, socket.AF_INET6, port, 2)
    return found


_ESTABLISHED = "01"


def _proc_address(hex_address: str) -> str:
    """An address as /proc/net/tcp{,6} writes it (little-endian 32-bit words in hexadecimal) in text form."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(words)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def proc_connections(port: int, tables: Iterable[str] = ("/proc/net/tcp", "/proc/net/tcp6")) -> list[Connection]:
    """The established connections to local ``port`` from the kernel's text tables (silence unknown: 0)."""
    suffix = f":{port:04X}"
    found = []
    for table in tables:
        try:
            with open(table) as lines:
                next(lines, None)
                for line in lines:
                    fields = line.split()
                    if len(fields) > 9 and fields[3] == _ESTABLISHED and fields[1].endswith(suffix):
                        inode = int(fields[9])
                        if inode:
                            host, _, hex_port = fields[2].partition(":")
                            address = _proc_address(host)
                            found.append(Connection(peer_string(address, int(hex_port, 16)), address, inode, 0))
        except OSError:
            continue
    return found


def connections(port: int) -> list[Connection]:
    """The established connections to local ``port`` in this network namespace."""
    try:
        return netlink_connections(port)
    except OSError:
        return proc_connections(port)


def _descriptors_of(inodes: set[int]) -> dict[int, int]:
    """This process's descriptors of sockets with these inodes, by inode."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            link = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if link.startswith("socket:[") and int(link[8:-1]) in inodes:
            found.setdefault(int(link[8:-1]), int(name))
    return found


def shut_owned(inodes: Iterable[int]) -> tuple[int, set[int]]:
    """Shut (both ways) this process's sockets with these inodes: how many, and the inodes it does not hold.

    Each descriptor's inode is checked again just before, so a descriptor closed and reused meanwhile is never
    taken for another. The socket is shut through the descriptor itself, not a duplicate: a process under attack
    may have no descriptor left to duplicate into."""
    wanted = set(inodes)
    if not wanted:
        return 0, set()
    held = _descriptors_of(wanted)
    done = 0
    for inode, fd in held.items():
        try:
            if os.fstat(fd).st_ino != inode:
                continue
            sock = socket.socket(fileno=fd)
        except OSError:
            continue
        try:
            sock.shutdown(socket.SHUT_RDWR)
            done += 1
        except OSError:
            pass
        finally:
            sock.detach()  # the descriptor stays its owner's: it sees the end and closes it
    return done, wanted - held.keys()


__all__ = ["Connection", "connections", "netlink_connections", "peer_string", "proc_connections", "shut_owned"]
