// Package argerr holds the library's one argument error, below every
// package that returns it: the root package (uring.ArgError), sqe, reg
// and task name this type through aliases, so one errors.As target
// catches a bad argument from any layer.
package argerr
