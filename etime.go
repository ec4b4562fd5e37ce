//go:build !(freebsd || openbsd || dragonfly)

package uring

import "syscall"

// errETIME is the errno of a wait whose timeout expired.
var errETIME error = syscall.ETIME
