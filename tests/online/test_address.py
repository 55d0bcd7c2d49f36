"""game/online/address.py: the text forms of an address (IPv4, IPv6 in brackets or bare, names)
split into host and port, the bad forms refused with the form to write, the one printed form,
and what the server's per-IP limits count an address as (checked against ``ipaddress``)."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.online.address import (
    AddressError,
    family_of,
    format_address,
    ip_key,
    is_loopback,
    normalized,
    split_host_port,
)

PORTS = st.integers(0, 65535)
IPV4 = st.ip_addresses(v=4).map(str)
#: IPv6 addresses in every spelling: compressed, exploded, and IPv4-mapped.
IPV6 = st.ip_addresses(v=6).flatmap(lambda ip: st.sampled_from([ip.compressed, ip.exploded]))
NAMES = st.lists(st.sampled_from(["localhost", "example", "org", "host-1", "x9", "a"]), min_size=1,
                 max_size=4).map(".".join)
#: Cheap checks: few examples each, so the fast subset stays fast.
FEW = settings(max_examples=25)


@FEW
@given(IPV6, PORTS)
def test_an_ipv6_address_in_brackets_with_a_port_splits_into_the_address_and_the_port(host, port):
    assert split_host_port(f"[{host}]:{port}") == (host, str(port))
    assert split_host_port(f"[{host}]") == (host, None)


@FEW
@given(IPV6)
def test_a_bare_ipv6_address_has_no_port_part(host):
    assert split_host_port(host) == (host, None)


@FEW
@given(st.one_of(IPV4, NAMES), PORTS)
def test_an_ipv4_address_or_a_name_splits_at_its_one_colon(host, port):
    assert split_host_port(f"{host}:{port}") == (host, str(port))
    assert split_host_port(host) == (host, None)


@pytest.mark.parametrize("text, words", [
    ("[::1", "closing ']'"),
    ("[::1]x", "'x' after ']'"),
    ("[::1]7100", "'7100' after ']'"),
    ("[]:7100", "'' in brackets is not an IPv6 address"),
    ("[127.0.0.1]:7100", "'127.0.0.1' in brackets is not an IPv6 address"),
    ("[example.org]", "not an IPv6 address"),
    ("::1]:7100", "a ']' with no '['"),
    ("1:2:3", "not an IPv6 address"),
    ("example.org:70:71", "not an IPv6 address"),
])
def test_a_bad_form_is_refused_with_the_form_to_write(text, words):
    with pytest.raises(AddressError, match=words.replace("[", r"\[").replace("]", r"\]")) as got:
        split_host_port(text)
    assert "[ADDRESS]:PORT" in str(got.value) or "[::1]:7100" in str(got.value)


@FEW
@given(st.text(max_size=40))
def test_any_text_splits_or_is_refused_with_an_address_error_never_another(text):
    try:
        host, port = split_host_port(text)
    except AddressError:
        return
    assert port is None or text.endswith(f":{port}")
    assert host in text


@FEW
@given(IPV4, PORTS)
def test_an_ipv4_address_prints_as_host_colon_port(host, port):
    assert format_address((host, port)) == f"{host}:{port}"


@FEW
@given(IPV6, PORTS)
def test_an_ipv6_address_prints_in_brackets_and_reads_back_as_the_same_address(host, port):
    text = format_address((host, port, 0, 0))
    assert text == f"[{host}]:{port}"
    assert split_host_port(text) == (host, str(port))


def test_a_zone_prints_after_a_percent_sign_and_anything_else_as_str_gives_it():
    lo = socket.if_nametoindex("lo")
    assert format_address(("fe80::1", 7100, 0, lo)) == "[fe80::1%lo]:7100"
    assert format_address(("fe80::1", 7100, 0, 999_999)) == "[fe80::1%999999]:7100"
    assert format_address("a test's name") == "a test's name"


def test_normalized_drops_the_flow_label_and_keeps_a_zone_only_when_there_is_one():
    assert normalized(("::1", 7100, 5, 0)) == ("::1", 7100)
    assert normalized(("fe80::1", 7100, 5, 2)) == ("fe80::1", 7100, 0, 2)
    assert normalized(("127.0.0.1", 7100)) == ("127.0.0.1", 7100)


def _ip_key_reference(host: str) -> str:
    """ip_key written out with ipaddress alone: mapped IPv4 as IPv4, global IPv6 by /64."""
    ip = ipaddress.ip_address(host)
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.is_loopback or ip.is_link_local:
        return host
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


@FEW
@given(st.one_of(IPV4, st.ip_addresses(v=6).map(str), IPV4.map(lambda v4: f"::ffff:{v4}")))
def test_the_per_ip_key_is_the_ipv4_address_or_the_ipv6_slash_64(host):
    assert ip_key(host) == _ip_key_reference(host)


def test_per_ip_keys_of_one_ipv6_network_are_one_and_a_mapped_client_counts_as_its_ipv4_address():
    assert ip_key("2001:db8:1:2::5") == ip_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert ip_key("2001:db8:1:3::5") != ip_key("2001:db8:1:2::5")
    assert ip_key("::ffff:203.0.113.5") == ip_key("203.0.113.5") == "203.0.113.5"
    assert ip_key("::1") == "::1" and ip_key("fe80::1%2") == "fe80::1%2"


@pytest.mark.parametrize("host, loopback, family", [
    ("127.0.0.1", True, socket.AF_INET), ("127.5.6.7", True, socket.AF_INET), ("::1", True, socket.AF_INET6),
    ("::ffff:127.0.0.1", True, socket.AF_INET6), ("10.0.0.1", False, socket.AF_INET),
    ("2001:db8::5", False, socket.AF_INET6), ("localhost", False, None),
])
def test_loopback_and_family_of_each_kind_of_host(host, loopback, family):
    assert is_loopback(host) is loopback and family_of(host) == family
