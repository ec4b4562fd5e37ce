//go:build linux

package task

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every exported method of the net and os adapters called on a nil
// receiver returns an *ArgError naming it (or a zero value), never a
// panic; so do the Runtime calls that make them.
func TestNilReceivers(t *testing.T) {
	for _, v := range []any{(*Conn)(nil), (*PacketConn)(nil), (*Listener)(nil), (*File)(nil)} {
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i)
			args := []reflect.Value{reflect.ValueOf(v)}
			for j := 1; j < m.Type.NumIn(); j++ {
				args = append(args, reflect.Zero(m.Type.In(j)))
			}
			var out []reflect.Value
			require.NotPanics(t, func() { out = m.Func.Call(args) }, "%s.%s", typ, m.Name)
			for _, o := range out {
				if o.Type() != reflect.TypeOf((*error)(nil)).Elem() {
					continue
				}
				err, _ := o.Interface().(error)
				var ae *ArgError
				require.True(t, errors.As(err, &ae), "%s.%s: %v", typ, m.Name, err)
				require.Equal(t, "receiver", ae.Arg)
			}
		}
	}
	var rt *Runtime
	_, err := rt.Listen("tcp", "127.0.0.1:0")
	require.Error(t, err)
	_, err = rt.ListenPacket("udp", "127.0.0.1:0")
	require.Error(t, err)
	_, err = rt.Dial(t.Context(), "tcp", "127.0.0.1:1")
	require.Error(t, err)
	_, err = rt.OpenFile("/dev/null", 0, 0)
	require.Error(t, err)
}
