package sys

import "syscall"

// Sigset is the kernel's signal set (sigset_t of the kernel, _NSIG = 64
// bits on amd64, arm64 and riscv64, not glibc's 1024-bit sigset_t): the
// signal mask of a wait (GeteventsArg.Sigmask, RegWait.Sigmask), with
// SigsetSize as sigmask_sz. Bit sig-1 stands for signal sig.
type Sigset uint64

// SigsetSize is the size the kernel wants in sigmask_sz (_NSIG / 8).
const SigsetSize = 8

// Add adds signal sig (1..64) to the set; other values do nothing.
func (s *Sigset) Add(sig syscall.Signal) {
	if sig >= 1 && sig <= 64 {
		*s |= 1 << (uint(sig) - 1)
	}
}

// Del removes signal sig from the set.
func (s *Sigset) Del(sig syscall.Signal) {
	if sig >= 1 && sig <= 64 {
		*s &^= 1 << (uint(sig) - 1)
	}
}

// Has reports whether signal sig is in the set.
func (s Sigset) Has(sig syscall.Signal) bool {
	return sig >= 1 && sig <= 64 && s&(1<<(uint(sig)-1)) != 0
}
