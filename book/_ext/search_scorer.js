// The search's ranking (Sphinx `html_search_scorer`; Sphinx puts this file into
// _static/language_data.js, which only the search page loads, after searchtools.js).
//
// Sphinx scores a page 15 when a query word is in one of its headings and 5 when it is only in
// the text, and breaks ties by title in alphabetical order, so a chapter that is about a word
// could come last. Here, on top of Sphinx's score:
//   1. a word the book defines in its 用語集 (any of the entry's names, e.g. クエリ or query for
//      「問い(クエリ, query)」) sends the reader to that entry first (+100, link to the entry);
//   2. the more often the query's words occur on a page, the higher it ranks, by less than 10,
//      so a heading match (15) still beats a page that only mentions the word (5 + 9.9 < 15);
//   3. what is still tied keeps the book's reading order.
// The counts, the glossary's names and the reading order come from _static/qkv-search-data.js,
// written at build time by book/_ext/qkv_book/search_ranking.py. tests/test_book_reader.py keeps a table of
// queries and the first hit each must give.
var Scorer = {
  // Sphinx's defaults (searchtools.js), unchanged.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  score: (result) => {
    const [docname, , anchor, , score] = result;
    if (typeof QKV_SEARCH === "undefined") return score;
    const query = (new URLSearchParams(window.location.search).get("q") || "").trim().toLowerCase();
    const stemmer = typeof Stemmer === "function" ? new Stemmer() : null;
    const place = QKV_SEARCH.docs.indexOf(docname);
    // The query's words as qkv_book/search_ranking.py counted the page's words: runs of letters and digits.
    let count = 0;
    for (const term of splitQuery(query)) {
      const stemmed = stemmer ? stemmer.stemWord(term) : term;
      for (const word of stemmed.match(/[\p{L}\p{N}]+/gu) || []) {
        count += (QKV_SEARCH.counts[word] || {})[place] || 0;
      }
    }
    // 0 for no occurrence, rising with every one, always below 10 (a heading's 15 - 5).
    let boost = 9.9 * (1 - 1 / (1 + count / 4));
    const entry = QKV_SEARCH.glossary.anchors[query];
    if (entry && docname === QKV_SEARCH.glossary.doc && !anchor) {
      boost += 100;
      // The hit opens the entry, not the top of the 用語集, and names it.
      result[1] = `${result[1]} > ${QKV_SEARCH.glossary.titles[entry]}`;
      result[2] = "#" + entry;
    }
    // Ties keep the reading order: earlier pages get a little more (at most 0.1).
    const order = place < 0 ? 0 : (QKV_SEARCH.docs.length - place) / (10 * QKV_SEARCH.docs.length);
    return score + boost + order;
  },
};
