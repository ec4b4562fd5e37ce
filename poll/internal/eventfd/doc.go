// Package eventfd creates the non-blocking eventfd a parking poll loop
// waits on through Go's netpoller (Linux only). It lives under internal/
// because it makes a raw syscall (the project keeps x/sys/unix syscalls in
// sys and internal packages); it belongs in sys as sys.Eventfd and should
// move there.
package eventfd
