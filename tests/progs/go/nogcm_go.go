// A Go program with no AES-GCM code linked in (bad input for ringside gcm):
// it only prints and waits for stdin to end.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	fmt.Printf("ready %d\n", os.Getpid())
	io.Copy(io.Discard, os.Stdin)
}
