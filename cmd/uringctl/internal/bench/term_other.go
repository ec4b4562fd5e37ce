//go:build !linux

package bench

// IsTerminal reports false off Linux: the progress display is Linux-only.
func IsTerminal(fd int) bool { return false }
