// Package sockaddr converts between netip.AddrPort and the kernel's socket
// addresses, for the task layer and the goroutine adapters (package goio)
// alike: the raw struct sockaddr_in/_in6 bytes of a msghdr's name (Put,
// Get) and of a struct sockaddr_un (PutUnix, GetUnix: a path or an
// abstract '@' name), unix.Sockaddr values (FromAddrPort, ToAddrPort),
// and an IPv6 zone's interface index (ZoneIndex).
package sockaddr
