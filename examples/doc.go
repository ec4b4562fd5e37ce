// Package examples holds runnable programs on the task runtime: filecopy
// (a file copier), echo (a TCP echo server), hello (HTTP and HTTPS with
// HTTP/2 through the runtime's net.Listener from package goio, and a file
// served with http.ServeContent from goio's File, sent with sendfile),
// unixsock (HTTP over a Unix socket: goio's listener and dialer) and
// udpecho (a UDP echo server on goio's net.PacketConn). Each is a main
// package in its own directory; its test runs it bounded.
package examples
