package scenarios_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/scenarios"
)

// Load a scenario from the embedded library and list its variants.
func Example() {
	sc, err := scenarios.Load("tiny", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", sc.Name, sc.Description)
	fmt.Printf("%d episodes from seed %d, task %q\n", sc.Episodes, sc.Seed, sc.Base.Task.Shape)
	for _, v := range sc.Variants {
		fmt.Printf("  %-6s %s, %d agents\n", v.Name, v.Spec.Policy.Organization, v.Spec.Collective.Agents)
	}
	// Output:
	// tiny: Five-node fork-join, split against team, for quick checks.
	// 5 episodes from seed 7, task "fork-join"
	//   split  split, 3 agents
	//   team   team, 3 agents
}

// Errors name the file, line and column, the field and what is allowed.
func ExampleParse() {
	src := []byte(`name: demo
task:
  shape: needle
  tries: 4
  coupling: uniform(0.5, 2)
collective:
  agents: -2
policy:
  organization: teams
`)
	_, err := scenarios.Parse(src, "demo.yaml", nil)
	fmt.Println(err)
	// Output:
	// demo.yaml:2:1: task.work: missing or always 0 (every subtask's work at speed 1, a duration or a distribution such as 5m or exp(5m); required, since without it every episode ends at once)
	// demo.yaml:5:3: task.coupling: uniform(0.5, 2) can draw values up to 2, outside [0, 1] (use a distribution whose support lies inside, such as uniform(0.2, 0.8))
	// demo.yaml:7:3: collective.agents: -2 is out of range (at least 1)
	// demo.yaml:9:3: policy.organization: unknown organization "teams" (allowed: centralized, decentralized, hybrid, independent, sequential, single, split, team); did you mean "team"?
}

// Overrides change the base before the variants are built.
func ExampleLoad_overrides() {
	sc, err := scenarios.Load("tiny", []string{"collective.agents=5", "episodes=50"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Episodes, sc.Variants[1].Spec.Collective.Agents)

	_, err = scenarios.Load("tiny", []string{"collective.agents=0"})
	fmt.Println(err)
	// Output:
	// 50 5
	// --set collective.agents=0: collective.agents: 0 is out of range (at least 1)
}
