#!/usr/bin/env python3
"""Deterministic text corpus for the en-us-8k telephony model.

Writes, into OUTDIR:
  asterisk-adapt.tsv    name<TAB>normalized text   (Asterisk prompts whose names start with a-l)
  asterisk-heldout.tsv  name<TAB>normalized text   (names starting with m-z: evaluation only)
  synth-adapt.txt       one sentence a line        (adaptation sentences)
  synth-heldout.txt     one sentence a line        (disjoint evaluation sentences)
Every word of every kept line is in the pronunciation dictionary; lines with an unknown word are dropped
(counted on stderr). Fixed seed, fixed templates: the output is byte-identical on every run.

usage: corpus.py CORE_SOUNDS_TXT_GZ DICT OUTDIR
"""
import gzip
import random
import re
import sys

ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
       "sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORD = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth", "6th": "sixth",
       "7th": "seventh", "8th": "eighth", "9th": "ninth", "10th": "tenth", "11th": "eleventh",
       "12th": "twelfth", "13th": "thirteenth", "20th": "twentieth", "21st": "twenty first",
       "22nd": "twenty second", "30th": "thirtieth", "31st": "thirty first"}


def number_words(n):
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + number_words(rest))
    if n < 10000:
        rest = n % 1000
        return number_words(n // 1000) + " thousand" + ("" if rest == 0 else " " + number_words(rest))
    return " ".join(ONES[int(d)] for d in str(n))


def normalize(text):
    """Lower case, digits spelled out, punctuation removed (apostrophes inside words kept)."""
    t = text.lower().replace("&", " and ").replace("%", " percent ")
    t = re.sub(r"\b(\d+(?:st|nd|rd|th))\b", lambda m: ORD.get(m.group(1), m.group(1)), t)
    t = re.sub(r"\d+", lambda m: " " + number_words(int(m.group(0))) + " ", t)
    t = re.sub(r"[^a-z' ]+", " ", t)
    words = [w.strip("'") for w in t.split()]
    return " ".join(w for w in words if w)


def load_dict(path):
    words = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split(" ", 1)[0]
            words.add(re.sub(r"\(\d+\)$", "", w))
    return words


def asterisk(core_gz, vocab):
    adapt, held, dropped = [], [], 0
    with gzip.open(core_gz, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_/\-]+):\s*(.*)$", line.rstrip("\n"))
            if not m or not m.group(2).strip() or "[" in m.group(2):
                continue
            name, text = m.group(1), normalize(m.group(2))
            if not text:
                continue
            if any(w not in vocab for w in text.split()):
                dropped += 1
                continue
            first = name[0].lower()
            (adapt if "a" <= first <= "l" else held).append((name, text))
    return adapt, held, dropped


FIRST = "james mary robert patricia john jennifer michael linda david elizabeth william susan richard " \
        "jessica joseph sarah thomas karen charles nancy daniel lisa matthew betty anthony sandra mark " \
        "ashley steven emily paul donna andrew michelle kevin carol brian amanda george melissa".split()
LAST = "smith johnson williams brown jones garcia miller davis rodriguez martinez wilson anderson taylor " \
       "thomas moore jackson martin lee thompson white harris clark lewis robinson walker young allen " \
       "king wright scott green baker adams nelson hill campbell mitchell roberts carter phillips".split()
COMPANY = "acme insurance|northwind bank|blue river energy|summit health|pacific telecom|first national " \
          "credit|green valley water|metro transit|city hospital|united freight".split("|")
MONTH = "january february march april may june july august september october november december".split()
DAY = "monday tuesday wednesday thursday friday saturday sunday".split()
ORDN = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth fifteenth " \
       "twentieth twenty first thirtieth".split()
ITEM = "bill|invoice|order|package|refund|payment|statement|contract|appointment|card|policy|claim|" \
       "subscription|delivery|account|reservation|prescription|ticket".split("|")
PROBLEM = "my internet keeps dropping|the line is very noisy|i was charged twice|my card was declined|" \
          "the package never arrived|i cannot log in to my account|the heating is not working|" \
          "my phone will not turn on|the meter reading is wrong|nobody called me back|" \
          "the technician did not show up|my password does not work".split("|")
CITY = "boston chicago denver seattle dallas atlanta phoenix portland houston miami detroit austin".split()
ADJ = "quick short long simple new old small large late early clear quiet busy careful".split()
NOUN = "report meeting message question answer number address office letter problem request " \
       "customer manager system service team phone network schedule".split()
VERB = "check send update cancel confirm review change verify transfer explain repeat".split()


def digits(r, n):
    return " ".join(ONES[r.randrange(10)] if r.random() > 0.15 else "oh" for _ in range(n))


def money(r):
    d = r.choice([5, 12, 19, 25, 40, 49, 75, 99, 120, 150, 249, 300, 1200])
    c = r.choice([0, 0, 15, 50, 99])
    return number_words(d) + " dollars" + ("" if c == 0 else " and " + number_words(c) + " cents")


TEMPLATES = [
    lambda r: f"thank you for calling {r.choice(COMPANY)} my name is {r.choice(FIRST)} how can i help you today",
    lambda r: f"hello this is {r.choice(FIRST)} {r.choice(LAST)} calling about my {r.choice(ITEM)}",
    lambda r: f"my account number is {digits(r, r.choice([6, 7, 8]))}",
    lambda r: f"can you please confirm your date of birth and the first line of your address",
    lambda r: f"i was born on the {r.choice(ORDN)} of {r.choice(MONTH)} nineteen {number_words(r.randrange(50, 100))}",
    lambda r: f"the payment of {money(r)} was received on {r.choice(DAY)}",
    lambda r: f"i would like to {r.choice(VERB)} my {r.choice(ITEM)} please",
    lambda r: f"{r.choice(PROBLEM)} since last {r.choice(DAY)}",
    lambda r: f"i am sorry to hear that let me {r.choice(VERB)} that for you",
    lambda r: f"could you spell your last name for me please",
    lambda r: f"your reference number is {digits(r, r.choice([4, 5, 6]))}",
    lambda r: f"please hold while i transfer you to the {r.choice(['billing', 'sales', 'technical support', 'claims', 'accounts'])} department",
    lambda r: f"the {r.choice(ITEM)} will arrive in {number_words(r.randrange(2, 15))} business days",
    lambda r: f"is there anything else i can help you with today",
    lambda r: f"my phone number is {digits(r, 3)} {digits(r, 3)} {digits(r, 4)}",
    lambda r: f"we can send a technician on {r.choice(DAY)} between {number_words(r.randrange(7, 12))} and {number_words(r.randrange(1, 6))}",
    lambda r: f"i moved to {r.choice(CITY)} in {r.choice(MONTH)} and need to change my address",
    lambda r: f"your balance is {money(r)} and the due date is the {r.choice(ORDN)} of {r.choice(MONTH)}",
    lambda r: f"yes that is correct",
    lambda r: f"no i do not think so",
    lambda r: f"can i speak to a {r.choice(['manager', 'supervisor', 'real person', 'specialist'])} please",
    lambda r: f"this call may be recorded for quality and training purposes",
    lambda r: f"the {r.choice(ADJ)} {r.choice(NOUN)} from the {r.choice(NOUN)} was sent to {r.choice(FIRST)} on {r.choice(DAY)}",
    lambda r: f"{r.choice(FIRST)} asked me to {r.choice(VERB)} the {r.choice(ADJ)} {r.choice(NOUN)} before {r.choice(DAY)}",
    lambda r: f"we need to {r.choice(VERB)} the {r.choice(NOUN)} with the {r.choice(NOUN)} in {r.choice(CITY)}",
    lambda r: f"the weather in {r.choice(CITY)} was {r.choice(['cold', 'warm', 'wet', 'sunny', 'windy'])} all {r.choice(['week', 'day', 'month'])}",
    lambda r: f"i have been a customer for {number_words(r.randrange(2, 30))} years and this has never happened before",
    lambda r: f"please call me back at {digits(r, 3)} {digits(r, 4)} after {number_words(r.randrange(1, 12))} o'clock",
    lambda r: f"the interest rate went up by {number_words(r.randrange(1, 9))} percent this {r.choice(['month', 'year', 'quarter'])}",
    lambda r: f"i want to cancel my {r.choice(ITEM)} because it is too expensive",
    lambda r: f"let me look that up for you it will only take a moment",
    lambda r: f"good {r.choice(['morning', 'afternoon', 'evening'])} {r.choice(['mister', 'miss', 'doctor'])} {r.choice(LAST)}",
]
# Held-out only: shapes never seen in adaptation (plus the held-out split of the shared shapes).
HELDOUT_TEMPLATES = [
    lambda r: f"my {r.choice(ITEM)} from {r.choice(MONTH)} still shows {money(r)}",
    lambda r: f"{r.choice(FIRST)} from {r.choice(CITY)} says {r.choice(PROBLEM)}",
    lambda r: f"could you {r.choice(VERB)} the {r.choice(NOUN)} for {r.choice(FIRST)} {r.choice(LAST)} by {r.choice(DAY)}",
]


def sentences(vocab):
    r = random.Random(8000)
    seen, out = set(), []
    for _ in range(6000):
        s = r.choice(TEMPLATES)(r)
        if s not in seen and all(w in vocab for w in s.split()):
            seen.add(s)
            out.append(s)
    adapt = [s for i, s in enumerate(out) if i % 5 != 4]
    held = [s for i, s in enumerate(out) if i % 5 == 4]
    for _ in range(200):
        s = r.choice(HELDOUT_TEMPLATES)(r)
        if s not in seen and all(w in vocab for w in s.split()):
            seen.add(s)
            held.append(s)
    return adapt, held


def main():
    core_gz, dict_path, outdir = sys.argv[1:4]
    vocab = load_dict(dict_path)
    a, h, dropped = asterisk(core_gz, vocab)
    sa, sh = sentences(vocab)
    for fn, rows in (("asterisk-adapt.tsv", a), ("asterisk-heldout.tsv", h)):
        with open(f"{outdir}/{fn}", "w") as f:
            f.writelines(f"{n}\t{t}\n" for n, t in rows)
    for fn, rows in (("synth-adapt.txt", sa), ("synth-heldout.txt", sh)):
        with open(f"{outdir}/{fn}", "w") as f:
            f.writelines(s + "\n" for s in rows)
    print(f"corpus: asterisk {len(a)} adapt / {len(h)} held-out ({dropped} dropped: unknown words); "
          f"synthetic {len(sa)} adapt / {len(sh)} held-out sentences", file=sys.stderr)


if __name__ == "__main__":
    main()
