"""The Python examples of sdk/README.md run as the guide shows them: every block opened with
```python NAME runs, and prints exactly the ```text block that follows it, if one does.

Run by ctest (python_sdk_unit) as build/python/run_bot -m unittest discover -s tests/python.
"""

import contextlib
import io
import pathlib
import unittest

README = pathlib.Path(__file__).resolve().parents[2] / "sdk" / "README.md"


def named_examples(text):
    """{name: (code, printed or None)} for each ```python NAME block, with the ```text block
    that is the next block after it."""
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
        if language == "python" and name:
            after = order[i + 1] if i + 1 < len(order) else None
            printed = after[2] if after and after[0] == "text" else None
            examples[name] = (code, printed)
    return examples


def run(name, code):
    """The example's printed text and its variables."""
    variables = {"__name__": f"readme_{name}"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{README}[{name}]", "exec"), variables)
    return out.getvalue(), variables


class ReadmeExamplesTest(unittest.TestCase):
    def test_every_named_example_prints_what_the_guide_shows(self):
        examples = named_examples(README.read_text(encoding="utf-8"))
        self.assertIn("knowledge", examples)
        for name, (code, printed) in examples.items():
            with self.subTest(example=name):
                out, _ = run(name, code)
                if printed is not None:
                    self.assertEqual(out, printed)

    def test_the_knowledge_example_tells_the_truth_about_the_hidden_hand(self):
        code, _ = named_examples(README.read_text(encoding="utf-8"))["knowledge"]
        _, v = run("knowledge", code)
        state, drawer, knowledge = v["state"], v["drawer"], v["knowledge"]
        hidden = set(state.hand(drawer))
        self.assertEqual(knowledge.tracked_size(drawer), len(hidden))
        self.assertFalse(hidden & set(knowledge.forbidden_for_all(drawer)))
        self.assertTrue(knowledge.forbidden_for_all(drawer))


if __name__ == "__main__":
    unittest.main()
