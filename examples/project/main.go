// Command hello is the example project pigo's examples/project overlay belongs to.
package main

import "fmt"

func main() { fmt.Println("hello") }
