<?php

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SluggerTest extends TestCase
{
    public function testConstructs(): void
    {
        $this->assertInstanceOf(Slugger::class, new Slugger('_'));
    }
}
