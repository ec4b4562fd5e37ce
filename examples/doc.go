// Package examples holds runnable programs on the task runtime: filecopy
// (a file copier), echo (a TCP echo server), hello (HTTP and HTTPS with
// HTTP/2 through the runtime's net.Listener, and a file served with
// http.ServeContent from the runtime's File, sent with splice), unixsock
// (HTTP over a Unix socket: the runtime's listener and dialer) and udpecho
// (a UDP echo server on the runtime's net.PacketConn). Each is a main
// package in its own directory; its test runs it bounded.
package examples
