package goio

import (
	"os"

	"github.com/pure-uring/uring/task"
)

// argError builds the *task.ArgError (the library's one argument error)
// of goio function fn.
func argError(fn, arg, reason string) *task.ArgError {
	return &task.ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "goio"}
}

// nilReceiver is the error of a method called on a nil *Env, *Conn,
// *PacketConn, *Listener or *File (net answers syscall.EINVAL there).
func nilReceiver(fn string) error { return argError(fn, "receiver", "is nil") }

// sysErr names the system call of an fdio error (a bare errno), as os and
// net do (*os.SyscallError); nil stays nil.
func sysErr(call string, err error) error {
	if err == nil {
		return nil
	}
	return os.NewSyscallError(call, err)
}
