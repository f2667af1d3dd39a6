"""用語集: every entry lists the chapters that use the term, each linked to where the chapter first does."""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .chapter_docs import chapter_number, is_chapter

GLOSSARY_DOC = "book/glossary"
SKIP_IN_PROSE = (nodes.literal_block, nodes.literal, nodes.raw, nodes.comment, nodes.image)


def term_names(term_text: str) -> list[str]:
    """「問い(クエリ, query)」 -> ["問い", "クエリ", "query"]; 「名札 / 手土産」 -> both."""
    head, _, rest = term_text.partition("(")
    names = [n.strip() for n in head.split("/")]
    names += [n.strip() for n in rest.rstrip(")").split(",")] if rest else []
    return [n for n in names if n]


def math_plain(text: str) -> str:
    """`d_{model}` -> `d_model`, so a term such as d_model is found inside formulas too."""
    return re.sub(r"[{}\s]", "", text)


def in_code_cell(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.container) and str(node.get("nb_element", "")).startswith(
                "cell_code"):
            return True
        node = node.parent
    return False


def collect_prose(app: Sphinx, doctree: nodes.document) -> None:
    """For a chapter: its prose, section by section, for the glossary's 「出てくる章」."""
    docname = app.env.docname
    if not is_chapter(docname):
        return
    sections: list[tuple[str, str, str]] = []  # (section id, section title, text)
    for section in doctree.findall(nodes.section):
        title = section[0].astext() if section.children else ""
        parts = []
        for node in section.findall(nodes.Text):
            if node.parent is None or isinstance(node.parent, SKIP_IN_PROSE) or in_code_cell(node):
                continue
            # only the text directly in this section, not in its subsections
            owner = node.parent
            while owner is not None and not isinstance(owner, nodes.section):
                owner = owner.parent
            if owner is not section:
                continue
            text = node.astext()
            parts.append(math_plain(text) if isinstance(node.parent, nodes.math) else text)
        for node in section.findall(nodes.math_block):
            owner = node.parent
            while owner is not None and not isinstance(owner, nodes.section):
                owner = owner.parent
            if owner is section:
                parts.append(math_plain(node.astext()))
        sections.append((section["ids"][0] if section["ids"] else "", title, " ".join(parts)))
    if not hasattr(app.env, "qkv_prose"):
        app.env.qkv_prose = {}
    app.env.qkv_prose[docname] = sections


def purge_prose(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "qkv_prose", {}).pop(docname, None)


def merge_prose(app: Sphinx, env: BuildEnvironment, docnames, other: BuildEnvironment) -> None:
    if not hasattr(env, "qkv_prose"):
        env.qkv_prose = {}
    env.qkv_prose.update(getattr(other, "qkv_prose", {}))



def glossary_outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    """A changed chapter changes where terms are used, so the glossary is rewritten too."""
    touched = set(added) | set(changed) | set(removed)
    if any(is_chapter(d) for d in touched) and GLOSSARY_DOC in env.found_docs:
        return [GLOSSARY_DOC]
    return []


def link_glossary_to_chapters(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Add 「出てくる章:第 2 章、第 6 章」 under every entry, each linked to the first section
    of that chapter whose prose uses one of the term's names."""
    if docname != GLOSSARY_DOC:
        return
    prose = getattr(app.env, "qkv_prose", {})
    chapters = sorted(prose, key=chapter_number)
    for item in doctree.findall(nodes.definition_list_item):
        terms = [t for t in item.children if isinstance(t, nodes.term)]
        definitions = [d for d in item.children if isinstance(d, nodes.definition)]
        if not terms or not definitions:
            continue
        names = [n for t in terms for n in term_names(t.astext())]
        para = nodes.paragraph(classes=["qkv-term-uses"])
        for chapter in chapters:
            hit = next(((sid, title) for sid, title, text in prose[chapter]
                        if any(n in text for n in names)), None)
            if hit is None:
                continue
            number = chapter_number(chapter)
            uri = app.builder.get_relative_uri(docname, chapter) + (f"#{hit[0]}" if hit[0] else "")
            if len(para):
                para += nodes.Text("、")
            ref = nodes.reference("", f"第 {number} 章", internal=True, refuri=uri,
                                  reftitle=f"第 {number} 章「{hit[1]}」")
            para += ref
        if len(para):
            para.insert(0, nodes.Text("出てくる章:"))
        else:
            para += nodes.Text("出てくる章:(本編の章には出てきません)")
        definitions[-1] += para



def setup(app: Sphinx) -> None:
    app.connect("doctree-read", collect_prose)
    app.connect("env-purge-doc", purge_prose)
    app.connect("env-merge-info", merge_prose)
    app.connect("env-get-outdated", glossary_outdated)
    app.connect("doctree-resolved", link_glossary_to_chapters)
