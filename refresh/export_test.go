package refresh

import (
	"context"

	"github.com/switchboard/switchboard/seeds"
)

// InstallChecked runs the install path of a refresh (check, hold, store, install) on a build the test made, so
// that the tests of the gate need not run the whole catalog build.
func (r *Refresher) InstallChecked(ctx context.Context, cur, set *seeds.Set) (Outcome, error) {
	return r.installChecked(ctx, cur, set)
}

// LoadStored is what every replica does each minute: follow the store.
func (r *Refresher) LoadStored(ctx context.Context) error { return r.loadStored(ctx) }
