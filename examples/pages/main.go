// Command pages walks the price catalog a page at a time with the generated Go client: the loop the README shows.
//
//	go run ./examples/pages -url http://localhost:8080/api/v1
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/switchboard/switchboard/gen/api"
)

func main() {
	base := flag.String("url", "http://localhost:8080/api/v1", "the service's API base URL")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := walk(ctx, *base)
	cancel()
	if err != nil {
		log.Fatal(err)
	}
}

// walk reads every page of /pricing, printing the running count.
func walk(ctx context.Context, base string) error {
	c, err := api.NewClientWithResponses(base)
	if err != nil {
		return err
	}
	limit := 200
	params := &api.GetPricingParams{Limit: &limit}
	n := 0
	for {
		res, err := c.GetPricingWithResponse(ctx, params)
		if err != nil {
			return err
		}
		if res.JSON200 == nil {
			return fmt.Errorf("GET /pricing: %s %s", res.Status(), res.Body)
		}
		n += len(res.JSON200.Pricing)
		fmt.Printf("%d of %d price records\n", n, res.JSON200.Meta.Total)
		if res.JSON200.Meta.NextCursor == nil {
			break
		}
		params.Cursor = res.JSON200.Meta.NextCursor
	}
	return nil
}
