// Command udpecho echoes UDP datagrams through a net.PacketConn of the
// task runtime (goio.On(rt).ListenPacket): each datagram goes back to its
// sender.
//
//	udpecho [-addr 127.0.0.1:7008] [-max N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7008", "listen address")
	max := flag.Int("max", 0, "exit after echoing this many datagrams (0: never)")
	flag.Parse()
	err := serve(context.Background(), *addr, *max, func(a string) { fmt.Println("udpecho: listening on", a) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "udpecho:", err)
		os.Exit(1)
	}
}

// serve echoes datagrams on addr until ctx is done or max were echoed;
// ready gets the bound address.
func serve(ctx context.Context, addr string, max int, ready func(string)) error {
	rt, err := task.NewRuntime(1)
	if err != nil {
		return err
	}
	defer rt.Close()
	pc, err := goio.On(rt).ListenPacket("udp", addr)
	if err != nil {
		return err
	}
	defer pc.Close()
	stop := context.AfterFunc(ctx, func() { pc.Close() }) // ends the ReadFrom below
	defer stop()
	ready(pc.LocalAddr().String())
	buf := make([]byte, 64<<10)
	for n := 0; max == 0 || n < max; n++ {
		m, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if _, err := pc.WriteTo(buf[:m], from); err != nil {
			return err
		}
	}
	return nil
}
