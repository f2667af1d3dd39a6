// Small fixes for the static book, loaded on every page after Sphinx's own scripts.

// Opened from disk (file://), browsers refuse fetch(), and Sphinx's search page fetches every
// hit's page to show a summary. List the hits without summaries instead of filling the console
// with errors; served over http(s), the summaries come back.
if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
  DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
}

// Sphinx 7.4's Japanese catalogue leaves the search's closing line empty, so the reader never
// learns how many pages matched. Fill in the untranslated messages.
if (typeof Documentation !== "undefined") {
  const messages = {
    "Search finished, found ${resultCount} page(s) matching the search query.":
      "検索が終わりました。${resultCount} ページが見つかりました。",
  };
  for (const [key, text] of Object.entries(messages)) {
    if (!Documentation.TRANSLATIONS[key]) Documentation.TRANSLATIONS[key] = text;
  }
}
