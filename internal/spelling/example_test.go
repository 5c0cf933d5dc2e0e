package spelling_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/internal/spelling"
)

func ExampleNearest() {
	commands := []string{"run", "train", "sweep", "compare"}
	fmt.Printf("%q\n", spelling.Nearest("trian", commands))
	fmt.Printf("%q\n", spelling.Nearest("plot", commands))
	// Output:
	// "train"
	// ""
}
