"""Which addresses the page fetcher may reach (docs/THREAT_MODEL.md: SSRF).

Only global unicast addresses, over http(s), without userinfo. IPv4 addresses hidden inside IPv6
(IPv4-mapped, 6to4, Teredo, NAT64 well-known prefix) are unwrapped and checked as themselves.
An explicit allow-list of "host:port" pairs lets tests reach a local server; it is empty by
default. Pure logic: resolution happens in companion.sources.fetch, which asks this module about every
address it would connect to, after every redirect.

Pages read through the reader's browser (docs/api.md) reach the companion without a fetch of its
own; their URL is checked by the same rules, plus the host names that always mean this machine
or its network (`private_hosts` in extension/shared/url-rules.json, which the extension applies
before it reads a page: one copy of the rules for both sides).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import Blocked

__all__ = ["AddressPolicy", "Target", "is_literal", "non_global_reason", "private_name"]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_RULES_FILE = "url-rules.json"
# As urls.py reads the same file: from a checkout where the extension keeps it, else package data.
_CHECKOUT_RULES = Path(__file__).resolve().parents[2] / "extension" / "shared" / _RULES_FILE


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: str  # lower case, without brackets
    port: int


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    allow_private: frozenset[str] = frozenset()  # "host:port", e.g. "127.0.0.1:8081"

    def check_url(self, url: str) -> Target:
        """The URL's target if its form is acceptable; its addresses are checked separately."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise Blocked(f"malformed address ({exc})") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise Blocked(f"blocked address: {scheme or 'no'} scheme (only http and https)")
        if parts.username is not None or parts.password is not None:
            raise Blocked("blocked address: user name or password in the link")
        host = (parts.hostname or "").lower().rstrip(".")
        if not host:
            raise Blocked("blocked address: no host")
        target = Target(scheme, host, port or (443 if scheme == "https" else 80))
        literal = _literal(host)
        if literal is not None:
            # aiohttp does not resolve IP literals, so a literal must be vetted here.
            self.check_ip(str(literal), target)
        return target

    def check_browser_url(self, url: str) -> Target:
        """check_url for a page the reader's browser read: also refuses the names that always
        mean this machine or its network (localhost, *.local…), since no resolver of ours saw
        the address the browser connected to. The allow-list admits its host:port as for fetches."""
        target = self.check_url(url)
        if f"{target.host}:{target.port}" in self.allow_private:
            return target
        if not is_literal(target.host) and private_name(target.host):
            raise Blocked(f"blocked address: {target.host} names this machine or its local network")
        return target

    def allows(self, target: Target, ip: str) -> bool:
        """Test-only escape hatch: `citelens serve --allow-private HOST:PORT`."""
        return (
            f"{target.host}:{target.port}" in self.allow_private
            or _hostport(ip, target.port) in self.allow_private
        )

    def check_ip(self, ip: str, target: Target) -> None:
        if self.allows(target, ip):
            return
        reason = non_global_reason(ip)
        if reason:
            raise Blocked(f"blocked address: {target.host} is {reason}")

    def filter(self, addresses: Iterable[str], target: Target) -> list[str]:
        """The resolved addresses we may connect to; raises Blocked when none is left."""
        allowed, refused = [], []
        for ip in addresses:
            try:
                self.check_ip(ip, target)
                allowed.append(ip)
            except Blocked as exc:
                refused.append(exc.reason)
        if not allowed:
            # One refused address among good ones is DNS noise; all refused is a rebinding attempt.
            raise Blocked(refused[0] if refused else f"blocked address: {target.host} has no address")
        if refused:
            raise Blocked(f"blocked address: {target.host} resolves to private as well as public addresses")
        return allowed


def is_literal(host: str) -> bool:
    """Whether a host is an IP address (in any spelling some resolver accepts), not a name."""
    return _literal(host) is not None


def private_name(host: str) -> bool:
    """Whether a host name is one of the shared rules' private names (localhost, *.local…)."""
    names, suffixes = _private_names()
    host = host.lower().rstrip(".")
    return host in names or host.endswith(suffixes)


@cache
def _private_names() -> tuple[frozenset[str], tuple[str, ...]]:
    if _CHECKOUT_RULES.is_file():
        text = _CHECKOUT_RULES.read_text(encoding="utf-8")
    else:
        text = (resources.files("companion.shared") / _RULES_FILE).read_text(encoding="utf-8")
    rules = json.loads(text)["private_hosts"]
    return frozenset(rules["names"]), tuple(rules["suffixes"])


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    # Old inet_aton forms that some resolvers still accept: 2130706433, 0x7f.1, 127.1
    if host.replace(".", "").replace("x", "").isalnum() and all(p for p in host.split(".")):
        try:
            return ipaddress.ip_address(socket.inet_ntoa(socket.inet_aton(host)))
        except OSError:
            return None
    return None


def _hostport(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def non_global_reason(ip: object) -> str:
    """Why an address must not be fetched, or "" when it is a global unicast address."""
    try:
        address = ipaddress.ip_address(str(ip).split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(address, ipaddress.IPv6Address):
        for inner in (address.ipv4_mapped, address.sixtofour, address.teredo and address.teredo[1]):
            if inner is not None:
                return non_global_reason(inner)
        if address in _NAT64:
            return non_global_reason(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    for flag, name in (
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address (cloud metadata lives there)"),
        (address.is_private, "a private network address"),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "an unspecified address"),
        (address.is_reserved, "a reserved address"),
    ):
        if flag:
            return name
    if not address.is_global:
        return "not a public address"
    return ""
