package session

import (
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Recovery builds a fold on its goroutine's stack and the session copies
// it into its own: nothing in a fold may point at itself or be unsafe to
// copy. A strings.Builder did (its self-pointer then pointed into a dead
// stack and the GC died on it); this keeps such a field from coming back.
func TestFoldHoldsNothingUnsafeToCopy(t *testing.T) {
	banned := map[reflect.Type]string{
		reflect.TypeFor[strings.Builder](): "strings.Builder points at itself",
		reflect.TypeFor[sync.Mutex]():      "a copied sync.Mutex",
		reflect.TypeFor[sync.RWMutex]():    "a copied sync.RWMutex",
		reflect.TypeFor[sync.WaitGroup]():  "a copied sync.WaitGroup",
	}
	seen := map[reflect.Type]bool{}
	var walk func(t0 reflect.Type, path string)
	walk = func(t0 reflect.Type, path string) {
		if why, ok := banned[t0]; ok {
			t.Errorf("%s: %s", path, why)
			return
		}
		if seen[t0] {
			return
		}
		seen[t0] = true
		switch t0.Kind() {
		case reflect.Struct:
			for i := range t0.NumField() {
				walk(t0.Field(i).Type, path+"."+t0.Field(i).Name)
			}
		case reflect.Array:
			walk(t0.Elem(), path+"[]")
		}
	}
	walk(reflect.TypeFor[fold](), "fold")
}
