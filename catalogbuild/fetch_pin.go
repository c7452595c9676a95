package catalogbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
)

// liteLLMCommitsAPI names the newest commit of litellm's price file on main.
const liteLLMCommitsAPI = "https://api.github.com/repos/BerriAI/litellm/commits?path=model_prices_and_context_window.json&sha=main&per_page=1"

// maxAPIBytes bounds an answer of GitHub's API (one commit is about 5 KB).
const maxAPIBytes = 1 << 20

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// pinLiteLLM names the newest commit of litellm's price file and the file's URL at that commit.
func pinLiteLLM(ctx context.Context, o FetchOptions) (pinned, error) {
	u, err := rebase(liteLLMCommitsAPI, o.BaseURL)
	if err != nil {
		return pinned{}, err
	}
	raw, err := o.download(ctx, u, maxAPIBytes)
	if err != nil {
		return pinned{}, fmt.Errorf("naming the commit: %w", err)
	}
	var commits []struct {
		SHA    string `json:"sha"`
		Commit struct {
			Committer struct {
				Date string `json:"date"`
			} `json:"committer"`
		} `json:"commit"`
	}
	if err := json.Unmarshal(raw, &commits); err != nil {
		return pinned{}, fmt.Errorf("naming the commit: %w: %w", ErrMalformed, err)
	}
	if len(commits) == 0 || !commitRE.MatchString(commits[0].SHA) {
		return pinned{}, fmt.Errorf("naming the commit: %w: GitHub's answer names no commit", ErrMalformed)
	}
	when, err := time.Parse(time.RFC3339, commits[0].Commit.Committer.Date)
	if err != nil {
		return pinned{}, fmt.Errorf("naming the commit: %w: %w", ErrMalformed, err)
	}
	return pinned{
		URL:    "https://raw.githubusercontent.com/BerriAI/litellm/" + commits[0].SHA + "/model_prices_and_context_window.json",
		Commit: commits[0].SHA, Date: when.UTC().Format(time.DateOnly),
	}, nil
}

// modelsDevDate is the newest last_updated of models.dev's models that is not after today (a date in the future
// says nothing of when the data was made).
func modelsDevDate(file []byte, today string) (string, error) {
	var f struct {
		Providers map[string]struct {
			Models map[string]struct {
				LastUpdated string `json:"last_updated"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(file, &f); err != nil {
		return "", err
	}
	newest := ""
	for _, p := range f.Providers {
		for _, m := range p.Models {
			if d := m.LastUpdated; manifestDateRE.MatchString(d) && d <= today && d > newest {
				newest = d
			}
		}
	}
	if newest == "" {
		return "", fmt.Errorf("no model of models.dev has a last_updated date")
	}
	return newest, nil
}

// npmReleaseRE reads the npm release from the genai-prices source's name (see resolveSnapshots).
var npmReleaseRE = regexp.MustCompile(`npm release \S+ \S+ \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)`)

// DatesInService reads, from the catalogs of a set (name -> file), the dates of the data sets they were built
// from, as FetchOptions.InService takes them: a refresh compares what it downloads with these, so that the
// catalogs never go back to older data.
func DatesInService(files map[string][]byte) (DataSetDates, error) {
	var env struct {
		Sources []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			AsOf string `json:"as_of"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(files["pricing"], &env); err != nil {
		return nil, fmt.Errorf("reading the sources of pricing: %w", err)
	}
	out := DataSetDates{}
	for _, s := range env.Sources {
		switch s.ID {
		case SourceLiteLLM, SourceModelsDev:
			out[s.ID] = s.AsOf
		case SourceGenAI:
			if m := npmReleaseRE.FindStringSubmatch(s.Name); m != nil {
				out[SourceGenAINPM] = m[1]
			}
		}
	}
	return out, nil
}
