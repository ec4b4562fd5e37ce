//go:build linux

package task

import "golang.org/x/sys/unix"

// socketCloexec makes a close-on-exec socket in one call.
func socketCloexec(domain, typ, proto int) (int, error) {
	return unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
}
