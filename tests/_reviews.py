"""Hand-made movie reviews shared by the tests (the embedded corpus is law text, not reviews)."""

MOVIE_REVIEWS = (
    "아이언맨은 올해 최고의 영화!",
    "영화 정말 재밌다 ㅋㅋ",
    "스파이더맨 봤는데 쩔어 ㅠㅠ",
    "영화 진짜 재밌어요 최고",
    "정말 최고의 영화 또 보고 싶다",
    "이 영화 진짜 별로였어요",
)


_GOOD = ["정말 재밌다", "최고의 영화", "배우 연기가 좋아요", "또 보고 싶다", "감동적인 이야기", "추천합니다"]
_BAD = ["너무 지루하다", "최악의 영화", "연기가 별로예요", "시간 아깝다", "뻔한 이야기", "비추합니다"]
_NEUTRAL = ["오늘 봤는데", "주말에", "친구랑 같이", "극장에서", "어제", "드디어"]


def labelled_reviews(n: int, seed: int) -> tuple[list[str], list[int]]:
    """``n`` short labelled reviews (1 positive, 0 negative), seeded: a neutral opening and two
    phrases of the label's side, so a small classifier can learn them."""
    import random

    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        y = rng.randrange(2)
        side = _GOOD if y else _BAD
        texts.append(f"{rng.choice(_NEUTRAL)} {rng.choice(side)} {rng.choice(side)}")
        labels.append(y)
    return texts, labels
