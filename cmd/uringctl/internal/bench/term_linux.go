//go:build linux

package bench

import "golang.org/x/sys/unix"

// IsTerminal reports whether fd is a terminal (TCGETS succeeds on it).
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
