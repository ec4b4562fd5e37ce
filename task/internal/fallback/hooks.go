package fallback

import (
	"sync/atomic"

	"github.com/pure-uring/uring/task/internal/iop"
)

// CallStep is a step of a blocking call, for the hook tests set with
// SetCallHook.
type CallStep int

const (
	// CallStart: the call's goroutine began; it has not claimed its call.
	CallStart CallStep = iota
	// CallRun: the goroutine claimed its call: its system call comes next.
	CallRun
	// CallEnd: the goroutine is about to exit.
	CallEnd
	// CallWaited: Abandon waits for this call's system call to return
	// (on the executor's thread).
	CallWaited
)

// callHook is what SetCallHook set; nil: none.
var callHook atomic.Pointer[func(code iop.Code, fd int, step CallStep)]

// SetCallHook makes every blocking call report its steps to fn, with its
// operation's code and fd (nil: no hook); fn may hold the goroutine that
// calls it (tests: a call held before its system call while the executor
// closes).
func SetCallHook(fn func(code iop.Code, fd int, step CallStep)) {
	if fn == nil {
		callHook.Store(nil)
		return
	}
	callHook.Store(&fn)
}

// hook reports step of the call of code on fd to the hook, if one is set.
func hook(code iop.Code, fd int, step CallStep) {
	if h := callHook.Load(); h != nil {
		(*h)(code, fd, step)
	}
}
