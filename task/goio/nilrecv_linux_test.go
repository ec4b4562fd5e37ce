//go:build linux

package goio

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// Every exported method of the net and os adapters, and of the Env that
// makes them (On of a nil runtime), called on a nil receiver returns a
// *task.ArgError naming it (or a zero value), never a panic.
func TestNilReceivers(t *testing.T) {
	require.Nil(t, On(nil))
	for _, v := range []any{(*Conn)(nil), (*PacketConn)(nil), (*Listener)(nil), (*File)(nil), On(nil)} {
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
				var ae *task.ArgError
				require.True(t, errors.As(err, &ae), "%s.%s: %v", typ, m.Name, err)
				require.Equal(t, "receiver", ae.Arg)
			}
		}
	}
}
