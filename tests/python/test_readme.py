"""The Python examples of the bot author's guide (sdk/README.md) and its pages (sdk/docs/*.md)
run as the pages show them: every ```python block has a name (```python NAME), runs, and prints
exactly the ```text block that follows it, if one does.

Run by ctest (python_sdk_unit) as build/python/run_bot -m unittest discover -s tests/python.
"""

import contextlib
import io
import pathlib
import unittest

SDK = pathlib.Path(__file__).resolve().parents[2] / "sdk"
PAGES = [SDK / "README.md"] + sorted((SDK / "docs").glob("*.md"))


def named_examples(text, page="page"):
    """{name: (code, printed or None)} for each ```python NAME block, with the ```text block
    that is the next block after it; a ```python block without a name is refused."""
    examples, order = {}, []
    fence, name, body = None, None, []
    for line in text.splitlines(keepends=True):
        if fence is None and line.startswith("```") and len(line.strip()) > 3:
            words = line[3:].split()
            fence, name, body = words[0], words[1] if len(words) > 1 else None, []
        elif fence is not None and line.startswith("```"):
            order.append((fence, name, "".join(body)))
            fence = None
        elif fence is not None:
            body.append(line)
    for i, (language, name, code) in enumerate(order):
        if language == "python" and not name:
            raise ValueError(f"{page}: a ```python block needs a name for the test that runs it")
        if language == "python" and name in examples:
            raise ValueError(f"{page}: a second ```python block named {name}")
        if language == "python":
            after = order[i + 1] if i + 1 < len(order) else None
            printed = after[2] if after and after[0] == "text" else None
            examples[name] = (code, printed)
    return examples


def all_examples():
    """{name: (code, printed, page)} over the guide and every page; a name is used once."""
    examples = {}
    for page in PAGES:
        for name, (code, printed) in named_examples(page.read_text(encoding="utf-8"),
                                                    page.name).items():
            if name in examples:
                raise ValueError(f"{page.name}: ```python {name} is also in {examples[name][2]}")
            examples[name] = (code, printed, page.name)
    return examples


def run(name, code, page="page"):
    """The example's printed text and its variables."""
    variables = {"__name__": f"readme_{name}"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{page}[{name}]", "exec"), variables)
    return out.getvalue(), variables


class ReadmeExamplesTest(unittest.TestCase):
    def test_every_named_example_prints_what_the_guide_shows(self):
        examples = all_examples()
        self.assertLessEqual({"first", "simulate", "knowledge", "environment"}, set(examples))
        for name, (code, printed, page) in examples.items():
            with self.subTest(example=name, page=page):
                out, _ = run(name, code, page)
                if printed is not None:
                    self.assertEqual(out, printed)

    def test_a_block_without_a_name_is_refused(self):
        with self.assertRaisesRegex(ValueError, "needs a name"):
            named_examples("```python\nprint(1)\n```\n")

    def test_the_first_bot_plays_the_play_that_scores_the_most(self):
        code, _, page = all_examples()["first"]
        _, v = run("first", code, page)
        from allfives_bot import Format, core
        state = core.State.new_match(Format.TWO_PLAYERS, seed=7)
        for _ in range(60):
            if state.is_terminal():
                break
            view = state.view(state.seat_to_move)
            choice = v["First"]().choose_play(view, None)
            points = [view.points_after(play) for play in view.legal_plays]
            self.assertEqual(points[choice], max(points))
            state.apply(view.legal_plays[choice])

    def test_the_knowledge_example_tells_the_truth_about_the_hidden_hand(self):
        code, _, page = all_examples()["knowledge"]
        _, v = run("knowledge", code, page)
        state, drawer, knowledge = v["state"], v["drawer"], v["knowledge"]
        hidden = set(state.hand(drawer))
        self.assertEqual(knowledge.tracked_size(drawer), len(hidden))
        self.assertFalse(hidden & set(knowledge.forbidden_for_all(drawer)))
        self.assertTrue(knowledge.forbidden_for_all(drawer))


if __name__ == "__main__":
    unittest.main()
