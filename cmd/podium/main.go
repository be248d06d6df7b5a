// Command podium is Podium's one binary: the server, its migrations and its API keys.
//
//	podium serve                   migrate, then serve HTTP and run the job workers
//	podium migrate                 apply pending migrations and exit
//	podium keys create --org NAME  create an API key (and the organization if new)
//	podium keys revoke PREFIX|ID   revoke an API key
//
// Configuration comes from the environment; see config.go and the README.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := rootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "podium:", err)
		os.Exit(1)
	}
}
