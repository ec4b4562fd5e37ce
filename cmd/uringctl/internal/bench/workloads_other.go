//go:build !linux

package bench

var runners = map[string]func(*Config) ([]Point, error){}
