//go:build !linux

package sys

import "os"

func MadviseDontFork(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return os.NewSyscallError("madvise", errNoSys)
}
