package sys

import (
	"unsafe"
	_ "unsafe" // go:linkname
)

// Thread identifies an OS thread of this process without a system call:
// the Go runtime's record of the thread (its M), which a thread keeps for
// its whole life. A Thread holds that record, so the runtime cannot free
// it and hand its address to a later thread: two Threads are the same
// thread exactly when Is says so, for as long as either is kept.
type Thread struct{ m unsafe.Pointer }

// CurrentThread returns the calling goroutine's thread now. Lock the
// goroutine to it (runtime.LockOSThread) for the answer to stay true.
func CurrentThread() Thread { return Thread{getm()} }

// Is reports whether t and u are the same thread (the zero Thread is no
// thread, and is none other).
func (t Thread) Is(u Thread) bool { return t.m != nil && t.m == u.m }

// getm returns the current M. runtime.getm is a sanctioned linkname target
// (go.dev/issue/67401: "Do not remove or change the type signature"); it
// returns the pointer as a uintptr, read here as the pointer it is, so
// that a Thread keeps the M reachable.
//
//go:linkname getm runtime.getm
func getm() unsafe.Pointer
